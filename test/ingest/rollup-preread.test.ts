/**
 * The rollup-maintaining index reads back stored versions only for ids that may exist: nothing
 * for the new ids of a first load into an empty index, the ids it wrote itself when they come
 * again, every id when the index held posts at open or after a failed write. Whatever it skips,
 * the rollups must equal a full recount of the posts (rollupAll).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RollupMaintainingIndex } from "../../src/index/rollup-index.js";
import type { IndexedPost } from "../../src/model/post.js";
import type { RollupCell, RollupPost, RollupWriter } from "../../src/topics/rollup.js";
import { cellKey, mergeCell, rollupAll, rollupDelta } from "../../src/topics/rollup.js";
import { MemoryIndex } from "./memory-index.js";

/** Keeps rollup cells in a map with the real delta arithmetic. */
class MapRollups implements RollupWriter {
  readonly cells = new Map<string, RollupCell>();
  async open(): Promise<void> {}
  async close(): Promise<void> {}
  async recordUpsert(previous: readonly RollupPost[], written: readonly RollupPost[]): Promise<void> {
    for (const [key, delta] of rollupDelta(previous, written))
      this.cells.set(key, mergeCell(this.cells.get(key), delta));
  }
}

/** A MemoryIndex that records the ids of every read of stored versions. */
class CountingIndex extends MemoryIndex {
  readonly reads: string[][] = [];
  override async get(ids: readonly string[]) {
    this.reads.push([...ids]);
    return super.get(ids);
  }
  override async getIndexed(ids: readonly string[]) {
    this.reads.push([...ids]);
    return super.getIndexed(ids);
  }
}

function post(n: number, topicId = `t${n % 3}`, sentimentScore = 0.1): IndexedPost {
  return {
    id: `reddit:p${n}`,
    source: "reddit",
    nativeId: `p${n}`,
    title: `post ${n}`,
    content: "",
    subforum: `s${n % 2}`,
    author: "",
    upvotes: n,
    comments: 1,
    created: 1_400_000_000_000 + n * 86_400_000,
    url: "",
    sentiment: "neutral",
    sentimentScore,
    leadType: "",
    leadScore: 0,
    painPoint: "",
    opportunity: "",
    industry: "",
    targetProduct: "",
    topicId,
    vector: new Float32Array([1, 0]),
  };
}

/** Rollup cells without zero-count leftovers, comparable with a recount. */
function nonEmpty(cells: Map<string, RollupCell>): Map<string, RollupCell> {
  return new Map(
    [...cells]
      .filter(([, c]) => c.count !== 0)
      .map(([k, c]) => [k, { ...c, sentimentSum: Math.round(c.sentimentSum * 1e6) / 1e6 + 0 }]),
  );
}

function recount(inner: MemoryIndex): Map<string, RollupCell> {
  return nonEmpty(rollupAll([...inner.rows.values()]));
}

test("a first load into an empty index reads back only ids it already wrote; rollups stay exact", async () => {
  const inner = new CountingIndex();
  const rollups = new MapRollups();
  const index = new RollupMaintainingIndex(inner, rollups);
  await index.open("m", 2);
  await index.upsert([post(1), post(2), post(3)]);
  await index.upsert([post(4), post(5)]);
  assert.deepEqual(inner.reads, [], "new ids are not read back");
  // p2 comes again with another topic and score (a re-ingest), next to a new p6.
  await index.upsert([post(2, "t9", -0.5), post(6)]);
  assert.deepEqual(inner.reads, [["reddit:p2"]]);
  assert.deepEqual(nonEmpty(rollups.cells), recount(inner));
  assert.equal(rollups.cells.get(cellKey("(total)", -1))?.count, 6);
});

test("an index that held posts at open reads every id", async () => {
  const inner = new CountingIndex();
  await inner.open("m", 2);
  await inner.upsert([post(1)]);
  const rollups = new MapRollups();
  for (const [k, c] of rollupAll([...inner.rows.values()])) rollups.cells.set(k, c);
  const index = new RollupMaintainingIndex(inner, rollups);
  await index.open("m", 2);
  await index.upsert([post(1, "t7"), post(2)]);
  assert.deepEqual(inner.reads, [["reddit:p1", "reddit:p2"]]);
  assert.deepEqual(nonEmpty(rollups.cells), recount(inner));
});

test("after a failed write every id is read again, and refused ids are not taken as written", async () => {
  const inner = new CountingIndex();
  const rollups = new MapRollups();
  const index = new RollupMaintainingIndex(inner, rollups);
  await index.open("m", 2);
  inner.refuse.add("reddit:p2");
  await index.upsert([post(1), post(2)]);
  inner.refuse.clear();
  await index.upsert([post(2)]);
  assert.deepEqual(inner.reads, [], "a refused id was never stored, so it is still new");
  inner.failNext = new Error("disk full");
  await assert.rejects(index.upsert([post(3)]), /disk full/);
  await index.upsert([post(4)]);
  assert.deepEqual(inner.reads, [["reddit:p4"]], "after a failure the index may hold rows it was not told about");
  assert.deepEqual(nonEmpty(rollups.cells), recount(inner));
});

test("a post identical to its stored version is not written and counts as unchanged; any difference is written", async () => {
  const inner = new CountingIndex();
  const rollups = new MapRollups();
  const index = new RollupMaintainingIndex(inner, rollups);
  await index.open("m", 2);
  await index.upsert([post(1), post(2), post(3)]);
  const writes = inner.upserts;
  assert.deepEqual(await index.upsert([post(1), post(2), post(3)]), {
    inserted: 0,
    updated: 0,
    unchanged: 3,
    failed: [],
  });
  assert.equal(inner.upserts, writes, "nothing to write, no write");
  // One field each: engagement, a score below float32 precision (not a change), the vector.
  const more = { ...post(1), upvotes: 99 };
  const sameScore = { ...post(2), sentimentScore: 0.1 + 1e-12 };
  const moved = { ...post(3), vector: new Float32Array([0, 1]) };
  const result = await index.upsert([more, sameScore, moved, post(4)]);
  assert.deepEqual(result, { inserted: 1, updated: 2, unchanged: 1, failed: [] });
  assert.equal(inner.rows.get("reddit:p1")?.upvotes, 99);
  assert.deepEqual([...inner.rows.get("reddit:p3")!.vector], [0, 1]);
  assert.deepEqual(nonEmpty(rollups.cells), recount(inner));
  // The last version of an id in a batch is the one compared: here the stored p1 (99 upvotes).
  assert.deepEqual(await index.upsert([post(1), { ...post(1), upvotes: 99 }]), {
    inserted: 0,
    updated: 0,
    unchanged: 1,
    failed: [],
  });
  assert.deepEqual(nonEmpty(rollups.cells), recount(inner));
});
