/**
 * The command quiets LanceDB's native logger (warnings such as "partition 4 is empty, skipping"
 * on an ingest of a few edited posts, seen by hand on a copy of the benchmark index) unless the
 * user set its filter: the variable must be set before a command loads the engine.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { main } from "../../src/cli/main.js";

const before = process.env.LANCEDB_LOG;
afterEach(() => {
  if (before === undefined) delete process.env.LANCEDB_LOG;
  else process.env.LANCEDB_LOG = before;
});

test("a command sets LANCEDB_LOG=error when it is unset", async () => {
  delete process.env.LANCEDB_LOG;
  assert.equal(await main(["plans", "--help"]), 0);
  assert.equal(process.env.LANCEDB_LOG, "error");
});

test("a LANCEDB_LOG the user set is kept", async () => {
  process.env.LANCEDB_LOG = "warn";
  assert.equal(await main(["plans", "--help"]), 0);
  assert.equal(process.env.LANCEDB_LOG, "warn");
});
