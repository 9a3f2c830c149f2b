/**
 * What one upsert costs as a bulk load (`--defer-indexing`) grows the embedded index: B batches
 * of 1,024 synthetic posts (test/index/synthetic.ts, 64-d vectors, no encoder or enrichment)
 * into a fresh deferred LanceDB writer, each upsert timed whole (id look-up, append, index
 * upkeep). Prints the mean of the first and last five batches and the total, then the close
 * (which folds every row into the indexes). A cost that grows with the table shows as a last-five
 * mean far above the first-five one (lancedb/maintenance.ts, deferred mode).
 * Run: [B=200] node --import tsx test/bench/bulk-upsert.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { DIMS, MODEL, randomPosts } from "../index/synthetic.js";

const BATCH = 1024;
const batches = Number(process.env.B ?? 200);
const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-bulk-upsert-"));
const mean = (ms: readonly number[]): string => (ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1);
const index = new LanceDbIndex({ dir, indexing: "deferred" });
try {
  await index.open(MODEL, DIMS);
  const times: number[] = [];
  for (let i = 0; i < batches; i++) {
    const posts = randomPosts(BATCH, i + 1, `b${i}-`);
    const t0 = performance.now();
    await index.upsert(posts);
    times.push(performance.now() - t0);
  }
  const t0 = performance.now();
  await index.close();
  const closeMs = performance.now() - t0;
  console.log(`${batches} upserts of ${BATCH} rows (${batches * BATCH} rows), deferred indexing`);
  console.log(
    `upsert ms: first 5 mean ${mean(times.slice(0, 5))}, last 5 mean ${mean(times.slice(-5))}, total ${times.reduce((a, b) => a + b, 0).toFixed(0)}`,
  );
  console.log(`close: ${closeMs.toFixed(0)} ms`);
} finally {
  // A failed upsert must not leave the writer open: its files would outlive the clean-up and
  // hide the error behind the clean-up's own (close() twice is fine).
  await index.close();
  rmSync(dir, { recursive: true, force: true });
}
