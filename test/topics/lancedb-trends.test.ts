/**
 * The TrendStore contract against the embedded LanceDB index in a temporary directory, written
 * through LanceDbIndex.upsert; plus the search indexes surviving a re-tag of every post.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import type { Table as LanceTable } from "@lancedb/lancedb";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { LanceDbTrendStore } from "../../src/index/lancedb/trends.js";
import { withPostsTable } from "../index/lance-table.js";
import { DIMS, MODEL, randomPosts } from "../index/synthetic.js";
import { registerTrendStoreContract } from "./trend-store-contract.js";

registerTrendStoreContract("lancedb", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-lance-trends-"));
  const dir = LanceDbIndex.dirFor(root);
  return {
    index: new LanceDbIndex({ dir }),
    store: new LanceDbTrendStore({ dir }),
    reader: new LanceDbTrendStore({ dir }),
    emptyStore: new LanceDbTrendStore({ dir: LanceDbIndex.dirFor(path.join(root, "nothing")) }),
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
});

describe("LanceDbTrendStore re-tag of every post", () => {
  it("keeps every index valid while it runs, over several calls", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-lance-retag-"));
    const dir = LanceDbIndex.dirFor(root);
    const inspect = <T>(read: (table: LanceTable) => Promise<T>): Promise<T> => withPostsTable(dir, read);
    // Per index: its type and [indexed, unindexed] rows.
    const indexes = () =>
      inspect(async (table) => {
        const out: Record<string, { type: string; rows: [number, number] }> = {};
        for (const entry of await table.listIndices()) {
          const stats = await table.indexStats(entry.name);
          out[entry.name] = { type: entry.indexType, rows: [stats?.numIndexedRows ?? 0, stats?.numUnindexedRows ?? 0] };
        }
        return out;
      });
    try {
      const index = new LanceDbIndex({ dir, vectorIndexMinRows: 500 });
      await index.open(MODEL, DIMS);
      const posts = randomPosts(600, 7);
      await index.upsert(posts);
      await index.indexesSettled();
      await index.close();
      const before = await indexes();
      assert.equal(before.vector_idx?.type, "IvfRq");
      for (const [name, ix] of Object.entries(before)) assert.deepEqual(ix.rows, [600, 0], name);

      const store = new LanceDbTrendStore({ dir });
      await store.open();
      // In two calls, as a rebuild re-tags in batches: the second must find the id index rebuilt,
      // or LanceDB's join falls back to rewriting whole rows.
      const assignments = posts.map((p, i) => ({ id: p.id, topicId: `t${i % 4}` }));
      const written =
        (await store.setTopics(assignments.slice(0, 250))) + (await store.setTopics(assignments.slice(250)));
      assert.equal(written, 600);
      const topics = await inspect(
        async (table) =>
          (await table.query().select(["id", "topic_id", "title"]).toArray()) as {
            id: string;
            topic_id: string;
            title: string;
          }[],
      );
      assert.equal(topics.length, 600);
      const byId = new Map(posts.map((p, i) => [p.id, { topic: `t${i % 4}`, title: p.title }]));
      for (const row of topics) assert.deepEqual({ topic: row.topic_id, title: row.title }, byId.get(row.id), row.id);
      // What the partial-column write is for: before close(), searches still find every row in
      // the vector and full-text indexes (an update() of every row had dropped the vector index).
      const during = await indexes();
      assert.equal(during.vector_idx?.type, "IvfRq");
      for (const [name, ix] of Object.entries(during)) assert.deepEqual(ix.rows, [600, 0], name);
      await store.close();

      const after = await indexes();
      assert.equal(after.vector_idx?.type, "IvfRq");
      for (const [name, ix] of Object.entries(after)) assert.deepEqual(ix.rows, [600, 0], name);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
