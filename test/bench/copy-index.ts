/**
 * Fills the Weaviate benchmark collection from the embedded index's rows (posts, enrichment and
 * stored vectors) through WeaviateIndex.upsert, the adapter's own batch import. This gives both
 * backends the same posts for the search benchmark without embedding the corpus a second time;
 * it is not a measurement of the ingest pipeline into Weaviate (the ratio section measures that).
 */
import * as lancedb from "@lancedb/lancedb";
import { USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { fromRow, POST_COLUMNS, POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import type { IndexedPost } from "../../src/model/post.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import { msSince } from "./stats.js";

/** What the copy did. */
export interface CopyResult {
  from: string;
  to: string;
  rows: number;
  inserted: number;
  updated: number;
  failed: number;
  seconds: number;
  targetCount: number;
}

const CHUNK = 1000;

function toVector(v: unknown): Float32Array {
  if (v instanceof Float32Array) return v;
  const arr = (v as { toArray?: () => ArrayLike<number> }).toArray?.() ?? (v as ArrayLike<number>);
  return Float32Array.from(arr);
}

/** Copies every post of the LanceDB target into the Weaviate target (idempotent by id). */
export async function copyIndex(from: BackendTarget, to: BackendTarget, log: (s: string) => void): Promise<CopyResult> {
  const db = await lancedb.connect(LanceDbIndex.dirFor(from.dataDir));
  const table = await db.openTable(POSTS_TABLE);
  const total = await table.countRows();
  const dims = toVector((await table.query().select(["vector"]).limit(1).toArray())[0]?.vector).length;
  const target = await indexFor(to);
  await target.open(USE_MODEL_ID, dims);
  const res: CopyResult = {
    from: from.dataDir,
    to: to.collection ?? to.dataDir,
    rows: 0,
    inserted: 0,
    updated: 0,
    failed: 0,
    seconds: 0,
    targetCount: 0,
  };
  const t0 = process.hrtime.bigint();
  try {
    for (let offset = 0; offset < total; offset += CHUNK) {
      const rows = await table
        .query()
        .select([...POST_COLUMNS, "vector"])
        .limit(CHUNK)
        .offset(offset)
        .toArray();
      const posts: IndexedPost[] = rows.map((r: Record<string, unknown>) => ({
        ...fromRow(r),
        vector: toVector(r.vector),
      }));
      const u = await target.upsert(posts);
      res.rows += posts.length;
      res.inserted += u.inserted;
      res.updated += u.updated;
      res.failed += u.failed.length;
      if ((offset / CHUNK) % 10 === 0) log(`copy: ${res.rows}/${total} rows`);
    }
    res.seconds = msSince(t0) / 1000;
    res.targetCount = await target.count();
  } finally {
    await target.close();
    table.close();
    db.close();
  }
  log(`copy: ${res.rows} rows in ${res.seconds.toFixed(1)} s; Weaviate holds ${res.targetCount}`);
  return res;
}
