/**
 * The TrendStore contract against the embedded LanceDB index in a temporary directory, written
 * through LanceDbIndex.upsert; plus the vector index surviving a re-tag of every post.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { connect } from "@lancedb/lancedb";
import { LanceDbIndex } from "../../src/index/lancedb-index.js";
import { LanceDbTrendStore } from "../../src/index/lancedb-trends.js";
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
  it("keeps the vector index: LanceDB drops it when an update rewrites every row, and close() rebuilds it", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-lance-retag-"));
    const dir = LanceDbIndex.dirFor(root);
    const vectorIndex = async (): Promise<{ type?: string; indexed: number; unindexed: number }> => {
      const db = await connect(dir);
      const table = await db.openTable("posts");
      try {
        const entry = (await table.listIndices()).find((i) => i.name === "vector_idx");
        const stats = await table.indexStats("vector_idx");
        return { type: entry?.indexType, indexed: stats?.numIndexedRows ?? 0, unindexed: stats?.numUnindexedRows ?? 0 };
      } finally {
        table.close();
        db.close();
      }
    };
    try {
      const index = new LanceDbIndex({ dir, vectorIndexMinRows: 500 });
      await index.open(MODEL, DIMS);
      const posts = randomPosts(600, 7);
      await index.upsert(posts);
      await index.indexesSettled();
      await index.close();
      assert.equal((await vectorIndex()).type, "IvfRq");

      const store = new LanceDbTrendStore({ dir, vectorIndexMinRows: 500 });
      await store.open();
      const written = await store.setTopics(posts.map((p, i) => ({ id: p.id, topicId: `t${i % 4}` })));
      assert.equal(written, 600);
      // What the fix is for: the full re-tag has already dropped the index.
      assert.equal((await vectorIndex()).type, undefined);
      await store.close();

      const after = await vectorIndex();
      assert.equal(after.type, "IvfRq");
      assert.deepEqual([after.indexed, after.unindexed], [600, 0]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
