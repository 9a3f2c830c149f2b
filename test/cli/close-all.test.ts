/**
 * closeAll: every opened resource is closed in order even when an earlier one fails, each
 * failure is reported with the command and the resource's name, and the result says whether
 * the command may report success.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { closeAll } from "../../src/cli/close-all.js";

test("closes in order, skips what was never opened, reports each failure and returns false", async () => {
  const closed: string[] = [];
  const lines: string[] = [];
  const ok = await closeAll(
    "threadsight ingest",
    [
      ["the enricher", { close: async () => void closed.push("enricher") }],
      ["the embedder", undefined],
      ["the index", { close: async () => Promise.reject(new Error("disk full while optimizing")) }],
      ["the store", { close: async () => void closed.push("store") }],
    ],
    (line) => lines.push(line),
  );
  assert.equal(ok, false);
  assert.deepEqual(closed, ["enricher", "store"]);
  assert.deepEqual(lines, ["threadsight ingest: closing the index failed: disk full while optimizing"]);
});

test("all closed: true and nothing reported", async () => {
  const lines: string[] = [];
  assert.equal(
    await closeAll("threadsight reenrich", [["the index", { close: async () => undefined }]], (l) => lines.push(l)),
    true,
  );
  assert.deepEqual(lines, []);
});
