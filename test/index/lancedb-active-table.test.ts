/** The LanceDB table pointer: "posts" without the file, the named table after a switch, bad files refused. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { activeTable, setActiveTable } from "../../src/index/lancedb/active-table.js";
import { POSTS_TABLE } from "../../src/index/lancedb/schema.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-active-table-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the pointer names the posts table; without it the table is posts", () => {
  assert.equal(activeTable(dir), POSTS_TABLE);
  setActiveTable(dir, "posts_all_minilm_l6_v2_384");
  assert.equal(activeTable(dir), "posts_all_minilm_l6_v2_384");
  setActiveTable(dir, "posts_use_lite_512");
  assert.equal(activeTable(dir), "posts_use_lite_512");
});

test("a pointer that names no table is refused with the file's name", () => {
  const bad = mkdtempSync(path.join(dir, "bad-"));
  writeFileSync(path.join(bad, "threadsight-active-table.json"), JSON.stringify({ table: "../elsewhere" }));
  assert.throws(() => activeTable(bad), /threadsight-active-table\.json names no posts table/);
});
