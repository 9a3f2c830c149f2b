/**
 * lancedb/rows.ts: posts written as the Arrow table it builds are stored exactly as the row
 * objects LanceDB converted itself (every column, vectors bit for bit), in a real LanceDB table;
 * and a row with a value of the wrong kind is still refused.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { Table } from "@lancedb/lancedb";
import { connect } from "@lancedb/lancedb";
import { rowsTable } from "../../src/index/lancedb/rows.js";
import { postsSchema, toRow } from "../../src/index/lancedb/schema.js";
import type { IndexedPost } from "../../src/model/post.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-rows-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const DIMS = 8;

function post(i: number): IndexedPost {
  const vector = new Float32Array(DIMS);
  for (let d = 0; d < DIMS; d++) vector[d] = Math.fround(Math.sin(i * 7 + d) * 10 ** ((d % 5) - 2));
  if (i === 0) vector.set([-0, 1e-40, -3.4e38, 3.4e38], 0);
  return {
    id: `reddit:t${i}`,
    source: "reddit",
    nativeId: `t${i}`,
    title: i === 1 ? "" : `Title ${i} — ünïcødé ✓ 😀`,
    content: i === 2 ? "x".repeat(20_000) : `Body ${i}\nwith "quotes" and \\ backslashes`,
    subforum: "startups",
    author: i % 2 ? "" : `user${i}`,
    upvotes: i === 3 ? -5 : i * 1000.7,
    comments: i,
    created: 1371237018000 + i * 86_400_000,
    url: `https://example.org/${i}`,
    sentiment: (["positive", "neutral", "negative"] as const)[i % 3]!,
    sentimentScore: i === 4 ? -1 : 0.123456789 * i,
    leadType: i % 2 ? "buying_intent" : "",
    leadScore: i * 3.5,
    painPoint: "",
    opportunity: i % 3 ? "" : "an opportunity",
    industry: "saas",
    targetProduct: "",
    topicId: i % 4 ? "t3" : "",
    vector,
  };
}

async function stored(table: Table): Promise<Record<string, unknown>[]> {
  const rows = (await table.query().toArray()) as Record<string, unknown>[];
  return rows
    .map(
      (r): Record<string, unknown> => ({
        ...r,
        vector: Buffer.from(new Float32Array(Array.from(r.vector as ArrayLike<number>)).buffer).toString("hex"),
      }),
    )
    .sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

test("posts written as the built Arrow table are stored exactly as LanceDB stored the row objects", async () => {
  const db = await connect(dir);
  const schema = postsSchema("test-model", DIMS);
  const posts = Array.from({ length: 40 }, (_, i) => post(i));
  const viaObjects = await db.createEmptyTable("objects", schema);
  // LanceDB's own conversion, given the vectors as plain arrays of numbers.
  await viaObjects.add(posts.map((p) => ({ ...toRow(p), vector: Array.from(p.vector) })));
  const viaArrow = await db.createEmptyTable("arrow", schema);
  const written = postsSchema("test-model", DIMS);
  await viaArrow
    .mergeInsert("id")
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .execute(rowsTable(posts.map(toRow), written));
  assert.deepEqual(await stored(viaArrow), await stored(viaObjects));
  assert.equal(await viaArrow.countRows(), 40);
  // A second write of the same ids updates them in place.
  const res = await viaArrow
    .mergeInsert("id")
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .execute(rowsTable(posts.slice(0, 5).map(toRow), written));
  assert.equal(res.numUpdatedRows, 5);
  assert.equal(await viaArrow.countRows(), 40);
  db.close();
});

test("a row with a value of the wrong kind is refused, not stored", async () => {
  const db = await connect(dir);
  const table = await db.createEmptyTable("wrong", postsSchema("test-model", DIMS));
  const bad = { ...toRow(post(1)), title: null };
  await assert.rejects(async () => table.add(rowsTable([bad], postsSchema("test-model", DIMS))));
  assert.equal(await table.countRows(), 0);
  db.close();
});
