/**
 * The SearchIndex contract against the embedded LanceDB index, in a fresh temp directory,
 * plus what only LanceDB has: the vector index path and cross-process freshness.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import type { Table } from "@lancedb/lancedb";
import { Index } from "@lancedb/lancedb";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { TRAINED_ROWS_KEY, vectorIndexTrainedRows } from "../../src/index/lancedb/maintenance.js";
import { serverReading } from "../../src/index/lancedb/readers.js";
import { rowsTable } from "../../src/index/lancedb/rows.js";
import { postsSchema, toRow } from "../../src/index/lancedb/schema.js";
import type { IndexedPost } from "../../src/model/post.js";
import { registerAggregateContract } from "./aggregate-contract.js";
import { registerIndexContract } from "./contract.js";
import { registerFilterContract } from "./filter-contract.js";
import { withPostsTable } from "./lance-table.js";
import { registerSearchContract } from "./search-contract.js";
import { cosine, DIMS, MODEL, randomPosts } from "./synthetic.js";

/** A fresh LanceDB directory for one suite. */
async function lanceFixture() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-"));
  return {
    create: () => new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir) }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

registerIndexContract("lancedb", lanceFixture);
registerFilterContract("lancedb", lanceFixture);
registerAggregateContract("lancedb", lanceFixture);
registerSearchContract("lancedb", lanceFixture);

describe("LanceDbIndex with a trained vector index", () => {
  it("builds IVF_RQ past the threshold, returns exact cosine scores and ranks hybrid windows like exact cosine", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-ivf-"));
    const index = new LanceDbIndex({ dir, vectorIndexMinRows: 1000 });
    try {
      await index.open(MODEL, DIMS);
      const posts = randomPosts(1200, 11);
      const res = await index.upsert(posts);
      assert.equal(res.inserted, 1200);
      // Training runs in the background, off the write path.
      await index.indexesSettled();
      const vectorIdx = await withPostsTable(dir, async (t) =>
        (await t.listIndices()).find((i) => i.name === "vector_idx"),
      );
      assert.equal(vectorIdx?.indexType, "IvfRq");
      const target = posts[17]!;
      const exact = posts
        .map((p) => ({ id: p.id, s: cosine(target.vector, p.vector) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10);
      const hits = await index.nearVector({ vector: target.vector, limit: 10, offset: 0 });
      assert.equal(hits[0]!.post.id, target.id);
      const recall = hits.filter((h) => exact.some((e) => e.id === h.post.id)).length / 10;
      assert.ok(recall >= 0.8, `recall@10 ${recall}`);
      for (const h of hits) {
        const p = posts.find((x) => x.id === h.post.id)!;
        assert.ok(Math.abs(h.score - cosine(target.vector, p.vector)) < 1e-4);
      }
      // The hybrid vector window (alpha 1: vector side only) ranks like exact cosine, both while
      // the index covers every row and while late rows are scanned flat beside it (the index's
      // own distances are on another scale than the flat scan's: see lancedb/queries.ts).
      const hybridRecall = async (all: typeof posts): Promise<number> => {
        const truth = all
          .map((p) => ({ id: p.id, s: cosine(target.vector, p.vector) }))
          .sort((a, b) => b.s - a.s)
          .slice(0, 10);
        const got = await index.hybrid({ text: "qqqzzz", vector: target.vector, alpha: 1, limit: 10, offset: 0 });
        assert.equal(got[0]!.post.id, target.id);
        return got.filter((h) => truth.some((t) => t.id === h.post.id)).length / 10;
      };
      const before = await hybridRecall(posts);
      assert.ok(before >= 0.8, `hybrid recall@10 with every row indexed ${before}`);
      // Rows written after training are found before the next optimize().
      const late = randomPosts(5, 99, "late");
      await index.upsert(late);
      const lateHit = await index.nearVector({ vector: late[2]!.vector, limit: 1, offset: 0 });
      assert.equal(lateHit[0]!.post.id, late[2]!.id);
      const after = await hybridRecall([...posts, ...late]);
      assert.ok(after >= 0.8, `hybrid recall@10 with unindexed rows ${after}`);
    } finally {
      await index.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("LanceDbIndex with an older vector index type", () => {
  it("is retrained to IVF_RQ by its next writer, and answers exactly before and after", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-retrain-"));
    const posts = randomPosts(1200, 13);
    const typeNow = (): Promise<string | undefined> =>
      withPostsTable(dir, async (t) => (await t.listIndices()).find((i) => i.name === "vector_idx")?.indexType);
    const first = new LanceDbIndex({ dir, vectorIndexMinRows: 1000 });
    await first.open(MODEL, DIMS);
    await first.upsert(posts);
    await first.close();
    // What an earlier version left: an IVF_HNSW_SQ index over the same rows.
    await withPostsTable(dir, (t) =>
      t.createIndex("vector", { config: Index.hnswSq({ distanceType: "cosine", numPartitions: 1 }), replace: true }),
    );
    assert.equal(await typeNow(), "IvfHnswSq");
    const writer = new LanceDbIndex({ dir, vectorIndexMinRows: 1000 });
    try {
      await writer.open(MODEL, DIMS);
      const target = posts[40]!;
      const exactTop = (): string =>
        posts.map((p) => ({ id: p.id, s: cosine(target.vector, p.vector) })).sort((a, b) => b.s - a.s)[0]!.id;
      assert.equal((await writer.nearVector({ vector: target.vector, limit: 1, offset: 0 }))[0]?.post.id, exactTop());
      await writer.upsert(randomPosts(3, 14, "next"));
      await writer.indexesSettled();
      assert.equal(await typeNow(), "IvfRq");
      const [hit] = await writer.nearVector({ vector: target.vector, limit: 1, offset: 0 });
      assert.equal(hit?.post.id, exactTop());
      assert.ok(Math.abs(hit!.score - 1) < 1e-4, `score ${hit?.score}`);
    } finally {
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("LanceDbIndex vector index as the table grows", () => {
  it("is retrained once the table calls for twice the partitions it was trained with, and records the size it was trained at", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-grow-"));
    const inspect = <T>(fn: (table: Table) => Promise<T>): Promise<T> => withPostsTable(dir, fn);
    const trainedAt = (): Promise<number | undefined> => inspect(vectorIndexTrainedRows);
    // 100 rows per partition: trained at 300 rows (3 partitions), due again from 550 (6).
    const options = { dir, vectorIndexMinRows: 300, rowsPerPartition: 100 };
    let writer = new LanceDbIndex(options);
    const all: IndexedPost[] = [];
    const write = async (n: number, seed: number): Promise<void> => {
      const posts = randomPosts(n, seed, `g${seed}`);
      all.push(...posts);
      await writer.upsert(posts);
      await writer.indexesSettled();
    };
    const exactTopIsFound = async (): Promise<void> => {
      const target = all[all.length - 7]!;
      const [hit] = await writer.nearVector({ vector: target.vector, limit: 1, offset: 0 });
      assert.equal(hit?.post.id, target.id);
      assert.ok(Math.abs(hit!.score - 1) < 1e-4, `score ${hit?.score}`);
    };
    try {
      await writer.open(MODEL, DIMS);
      await write(300, 21);
      assert.equal(await trainedAt(), 300);
      await write(200, 22);
      assert.equal(await trainedAt(), 300, "500 rows call for 5 partitions, fewer than twice 3");
      await exactTopIsFound();
      await write(100, 23);
      assert.equal(await trainedAt(), 600, "600 rows call for 6 partitions: retrained");
      assert.equal(await inspect(async (t) => (await t.indexStats("vector_idx"))?.indexType), "IVF_RQ");
      await exactTopIsFound();
      await writer.close();
      // An index an earlier version trained records nothing: taken as trained at the threshold.
      await inspect((t) => t.updateFieldMetadata([{ path: "vector", metadata: { [TRAINED_ROWS_KEY]: null } }]));
      assert.equal(await trainedAt(), undefined);
      writer = new LanceDbIndex(options);
      await writer.open(MODEL, DIMS);
      await write(5, 24);
      assert.equal(await trainedAt(), 605);
      await exactTopIsFound();
    } finally {
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("LanceDbIndex upkeep", () => {
  it("folds rows written since the last optimize into the indexes when the writer closes", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-close-"));
    try {
      const writer = new LanceDbIndex({ dir, optimizeEveryRows: 1_000_000 });
      await writer.open(MODEL, DIMS);
      await writer.upsert(randomPosts(50, 2, "a"));
      await writer.upsert(randomPosts(50, 3, "b"));
      const unindexed = (): Promise<number> =>
        withPostsTable(
          dir,
          async (t) => (await t.listIndices()).find((i) => i.name === "content_idx")?.numUnindexedRows ?? -1,
        );
      assert.equal(await unindexed(), 50);
      await writer.close();
      assert.equal(await unindexed(), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a deferred writer (--defer-indexing) builds nothing but its look-up index while writing, finds its rows meanwhile, and at close folds them in and trains the vector index at its final size", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-defer-"));
    const stats = (): Promise<{ id?: number; content?: number; vector?: string; trainedAt?: number }> =>
      withPostsTable(dir, async (t) => ({
        id: (await t.indexStats("id_idx"))?.numUnindexedRows,
        content: (await t.indexStats("content_idx"))?.numUnindexedRows,
        vector: (await t.indexStats("vector_idx"))?.indexType,
        trainedAt: await vectorIndexTrainedRows(t),
      }));
    // A normal writer with these settings trains at 300 rows and optimizes every 100.
    const writer = new LanceDbIndex({
      dir,
      vectorIndexMinRows: 300,
      optimizeEveryRows: 100,
      rowsPerPartition: 100,
      indexing: "deferred",
    });
    try {
      await writer.open(MODEL, DIMS);
      const all: IndexedPost[] = [];
      for (const seed of [31, 32, 33]) {
        const posts = randomPosts(200, seed, `d${seed}`);
        all.push(...posts);
        await writer.upsert(posts);
        await writer.indexesSettled();
      }
      // The first write creates the full-text indexes over its rows (keyword search needs them);
      // the id btree every upsert's look-up uses is rebuilt once 100 rows (here) are outside it.
      assert.deepEqual(await stats(), { id: 0, content: 400, vector: undefined, trainedAt: undefined });
      const target = all[all.length - 3]!;
      const [hit] = await writer.nearVector({ vector: target.vector, limit: 1, offset: 0 });
      assert.equal(hit?.post.id, target.id, "unindexed rows are searched by scan");
      await writer.close();
      assert.deepEqual(await stats(), { id: 0, content: 0, vector: "IVF_RQ", trainedAt: 600 });
    } finally {
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an auto writer (threadsight ingest's default) defers while no server reads the directory, and keeps its indexes current once one does, even after it leaves", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-auto-"));
    const stats = (): Promise<{ content?: number; vector?: string }> =>
      withPostsTable(dir, async (t) => ({
        content: (await t.indexStats("content_idx"))?.numUnindexedRows,
        vector: (await t.indexStats("vector_idx"))?.indexType,
      }));
    const writer = new LanceDbIndex({
      dir,
      vectorIndexMinRows: 300,
      optimizeEveryRows: 100,
      rowsPerPartition: 100,
      indexing: "auto",
    });
    const server = new LanceDbIndex({ dir, serving: true });
    try {
      await writer.open(MODEL, DIMS);
      for (const seed of [51, 52]) {
        await writer.upsert(randomPosts(200, seed, `a${seed}`));
        await writer.indexesSettled();
      }
      // Nobody reads: past both thresholds (100 rows, 300 for the vector index), nothing ran.
      assert.deepEqual(await stats(), { content: 200, vector: undefined });
      await server.open(MODEL, DIMS);
      assert.equal(serverReading(dir), true);
      await writer.upsert(randomPosts(200, 53, "a53"));
      await writer.indexesSettled();
      // The first background run trains the vector index (due first); the optimize follows the next write.
      assert.deepEqual(await stats(), { content: 400, vector: "IVF_RQ" });
      await server.close();
      assert.equal(serverReading(dir), false, "a closed server withdraws its mark");
      await writer.upsert(randomPosts(10, 54, "a54"));
      await writer.indexesSettled();
      assert.deepEqual(await stats(), { content: 0, vector: "IVF_RQ" }, "once live, the writer stays live");
    } finally {
      await server.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("counts rows an earlier writer left outside the indexes (an ingest killed before its close) towards the next optimize", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-inherit-"));
    const first = new LanceDbIndex({ dir });
    const unindexed = (): Promise<number | undefined> =>
      withPostsTable(dir, async (t) => (await t.indexStats("content_idx"))?.numUnindexedRows);
    try {
      await first.open(MODEL, DIMS);
      await first.upsert(randomPosts(20, 41, "k"));
      await first.close();
      // What a killed writer leaves: rows appended, no optimize after them.
      await withPostsTable(dir, (t) =>
        t.add(rowsTable(randomPosts(400, 42, "l").map(toRow), postsSchema(MODEL, DIMS))),
      );
      assert.equal(await unindexed(), 400);
      const next = new LanceDbIndex({ dir, optimizeEveryRows: 100 });
      try {
        await next.open(MODEL, DIMS);
        await next.upsert(randomPosts(10, 43, "m"));
        await next.indexesSettled();
        assert.equal(await unindexed(), 0, "410 rows unindexed is past 100: optimized without waiting for 100 more");
      } finally {
        await next.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serialises concurrent upserts of the same ids: no duplicates", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-conc-"));
    const index = new LanceDbIndex({ dir });
    try {
      await index.open(MODEL, DIMS);
      const posts = randomPosts(40, 4, "c");
      const results = await Promise.all([index.upsert(posts), index.upsert(posts), index.upsert(posts.slice(0, 10))]);
      assert.equal(
        results.reduce((n, r) => n + r.inserted, 0),
        40,
      );
      assert.equal(await index.count(), 40);
    } finally {
      await index.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rankedFusion hybrid scores lie in 0..1 with a match on both sides first", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-rrf-"));
    const index = new LanceDbIndex({ dir, fusion: "rankedFusion" });
    try {
      await index.open(MODEL, DIMS);
      const posts = randomPosts(30, 3, "rf");
      await index.upsert(posts);
      const hits = await index.hybrid({
        text: posts[4]!.title,
        vector: posts[4]!.vector,
        alpha: 0.5,
        limit: 10,
        offset: 0,
      });
      assert.equal(hits[0]!.post.id, posts[4]!.id);
      assert.equal(hits[0]!.score, 1);
      for (const h of hits) assert.ok(h.score > 0 && h.score <= 1, `score ${h.score}`);
    } finally {
      await index.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
