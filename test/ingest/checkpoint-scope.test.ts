/**
 * Checkpoints are per index: progress saved while ingesting into one Weaviate collection must not
 * make an ingest of the same file into another collection (same data directory) skip records.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { CheckpointStore, checkpointScope } from "../../src/ingest/checkpoint.js";
import { emptyStats } from "../../src/ingest/ingest-stats.js";

test("a checkpoint saved for one index is not seen by another sharing the data directory", async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-ckpt-"));
  try {
    const input = { path: "/data/posts.ndjson", size: 1234, mtimeMs: 1_700_000_000_000, contentHash: "ab".repeat(32) };
    const a = new CheckpointStore(
      dataDir,
      checkpointScope({ weaviateUrl: "http://10.0.0.1:8080", weaviateCollection: "PostsA" }),
    );
    const b = new CheckpointStore(
      dataDir,
      checkpointScope({ weaviateUrl: "http://10.0.0.1:8080", weaviateCollection: "PostsB" }),
    );
    const embedded = new CheckpointStore(
      dataDir,
      checkpointScope({ weaviateUrl: undefined, weaviateCollection: "PostsA" }),
    );
    await a.save(input, 500, emptyStats());
    assert.equal((await a.load(input))?.records, 500);
    assert.equal(await b.load(input), undefined);
    assert.equal(await embedded.load(input), undefined);
    // The embedded index keeps the key it always had (scope ""), so existing checkpoints resume.
    assert.equal(embedded.fileFor(input), new CheckpointStore(dataDir).fileFor(input));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
