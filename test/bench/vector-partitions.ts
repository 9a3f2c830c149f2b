/**
 * What the vector index's partition count costs at 1M posts: on a copy of the kept 1M-post
 * scaling store (SCALING_KEEP=1), VectorSearch pages and hybrid vector windows (the service's
 * queries, lancedb/queries.ts) with the index trained at the full size, then retrained with the
 * one partition a store grown by ingest from 20,000 posts kept before the writer retrained on
 * growth (lancedb/maintenance.ts). 40 held-out questions x 3; recall@10 against exact vectors.
 * Needs ~3 GB free in /tmp. Run: node --import tsx test/bench/vector-partitions.ts
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { Index } from "@lancedb/lancedb";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { vectorIndexOptions } from "../../src/index/lancedb/maintenance.js";
import { RESULT_COLUMNS, vectorIndexStats, vectorPlan, vectorQuery } from "../../src/index/lancedb/queries.js";
import { keptLanceDir } from "./scaling.js";
import { loadBenchQueries } from "./search-queries.js";
import { median } from "./stats.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-partitions-"));
cpSync(LanceDbIndex.dirFor(keptLanceDir(1_000_000)), dir, { recursive: true });
const db = await lancedb.connect(dir);
const table = await db.openTable("posts");
const n = await table.countRows();
const emb = await startUseEmbedder(2);
const queries = loadBenchQueries().slice(-40);
const vecs = await emb.embed(queries);
await emb.close();
const exact: string[][] = [];
for (const v of vecs)
  exact.push(
    (
      (await table
        .vectorSearch(Array.from(v))
        .distanceType("cosine")
        .bypassVectorIndex()
        .limit(10)
        .select(["id"])
        .toArray()) as any[]
    ).map((r) => r.id),
  );
const measure = async (label: string) => {
  const stats = await vectorIndexStats(table);
  const page: number[] = [],
    win: number[] = [];
  let hit = 0;
  for (let r = 0; r < 3; r++)
    for (const [i, v] of vecs.entries()) {
      let t = performance.now();
      const rows = (await vectorQuery(
        table,
        v,
        undefined,
        { limit: 10, offset: 0 },
        RESULT_COLUMNS,
        vectorPlan(stats, "page", 10),
      ).toArray()) as any[];
      page.push(performance.now() - t);
      t = performance.now();
      await vectorQuery(table, v, undefined, { limit: 200, offset: 0 }, ["id"], vectorPlan(stats, "window", 200))
        .withRowId()
        .toArray();
      win.push(performance.now() - t);
      if (r === 0) {
        const s = new Set(exact[i]);
        hit += rows.filter((x) => s.has(x.id)).length;
      }
    }
  console.log(
    `${label}: rows ${n}, page p50 ${median(page).toFixed(1)} ms, window(200) p50 ${median(win).toFixed(1)} ms, recall@10 ${(hit / (10 * vecs.length)).toFixed(3)}`,
  );
};
await measure(`trained at ${n} (${vectorIndexOptions(n).numPartitions} partitions)`);
const t0 = performance.now();
await table.createIndex("vector", { config: Index.ivfRq({ ...vectorIndexOptions(20_000) }), replace: true });
console.log(`1 partition trained in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
await measure("1 partition");
table.close();
db.close();
rmSync(dir, { recursive: true, force: true });
