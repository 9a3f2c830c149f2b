/**
 * The SearchIndex contract against the embedded LanceDB index, in a fresh temp directory,
 * plus what only LanceDB has: the vector index path and cross-process freshness.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { connect } from "@lancedb/lancedb";
import { LanceDbIndex } from "../../src/index/lancedb-index.js";
import { registerIndexContract } from "./contract.js";
import { cosine, DIMS, MODEL, randomPosts } from "./synthetic.js";

registerIndexContract("lancedb", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-"));
  return {
    create: () => new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir) }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("LanceDbIndex with a trained vector index", () => {
  it("builds IVF_PQ past the threshold and still returns exact cosine scores", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-ivf-"));
    const index = new LanceDbIndex({ dir, vectorIndexMinRows: 1000 });
    try {
      await index.open(MODEL, DIMS);
      const posts = randomPosts(1200, 11);
      const res = await index.upsert(posts);
      assert.equal(res.inserted, 1200);
      // Training runs in the background, off the write path.
      await index.indexesSettled();
      const db = await connect(dir);
      const table = await db.openTable("posts");
      const vectorIdx = (await table.listIndices()).find((i) => i.name === "vector_idx");
      table.close();
      db.close();
      assert.equal(vectorIdx?.indexType, "IvfPq");
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
      // Rows written after training are found before the next optimize().
      const late = randomPosts(5, 99, "late");
      await index.upsert(late);
      const lateHit = await index.nearVector({ vector: late[2]!.vector, limit: 1, offset: 0 });
      assert.equal(lateHit[0]!.post.id, late[2]!.id);
    } finally {
      await index.close();
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
      const unindexed = async (): Promise<number> => {
        const db = await connect(dir);
        const table = await db.openTable("posts");
        const fts = (await table.listIndices()).find((i) => i.name === "content_idx");
        table.close();
        db.close();
        return fts?.numUnindexedRows ?? -1;
      };
      assert.equal(await unindexed(), 50);
      await writer.close();
      assert.equal(await unindexed(), 0);
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
      assert.equal(results.reduce((n, r) => n + r.inserted, 0), 40);
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
      const hits = await index.hybrid({ text: posts[4]!.title, vector: posts[4]!.vector, alpha: 0.5, limit: 10, offset: 0 });
      assert.equal(hits[0]!.post.id, posts[4]!.id);
      assert.equal(hits[0]!.score, 1);
      for (const h of hits) assert.ok(h.score > 0 && h.score <= 1, `score ${h.score}`);
    } finally {
      await index.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
