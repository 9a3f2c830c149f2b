/**
 * The LanceDB queries behind every search, built in one place so that the adapter
 * (lancedb-index.ts) and the benchmark's engine floor (test/bench/floor.ts) issue exactly the
 * same requests with the same parameters.
 *
 * Vector queries and the IVF_PQ index: PQ codes rank candidates approximately; `refineFactor`
 * re-reads the full vectors of `limit * refineFactor` candidates and re-ranks them exactly, so the
 * returned distances are exact either way. The re-read is the expensive part (random reads of
 * 2 KB vectors): at a hybrid window of 200 candidates, factor 10 cost ~30 ms of a ~40 ms leg on
 * the 65k-post benchmark index. Hybrid legs therefore use factor 2: on that index (30 real
 * questions, top 10 compared with exact brute-force vectors) the fused top 10 agreed 93.3% with
 * the exact answer at factor 2, 94.0% at 10 and 90.0% at 1, at about half the cost of 10.
 * VectorSearch pages, where cosine order is the whole answer, keep 10 (93% agreement; 81% at 2).
 */
import { MultiMatchQuery } from "@lancedb/lancedb";
import type { Query, Table, VectorQuery } from "@lancedb/lancedb";
import { idsWhere } from "./lancedb-filter.js";

/** Weight of a title match relative to a content match in keyword scoring. */
export const TITLE_BOOST = 2;
/** IVF partitions probed (of ~sqrt(rows)). */
export const NPROBES = 20;
/** Exact re-rank factor for VectorSearch pages. */
export const PAGE_REFINE_FACTOR = 10;
/** Exact re-rank factor for the vector leg of a hybrid query (see the module comment). */
export const HYBRID_REFINE_FACTOR = 2;

/** BM25 over title (boosted) and content; rows carry `_score`. */
export function keywordQuery(table: Table, text: string, where: string | undefined, limit: number, columns: readonly string[]): Query {
  const fts = new MultiMatchQuery(text, ["title", "content"], { boosts: [TITLE_BOOST, 1] });
  const q = table.query().fullTextSearch(fts).select([...columns, "_score"]).limit(limit);
  return where ? q.where(where) : q;
}

/** Cosine nearest neighbours; rows carry `_distance` (1 - cosine similarity). */
export function vectorQuery(
  table: Table,
  vector: Float32Array,
  where: string | undefined,
  page: { limit: number; offset: number },
  columns: readonly string[],
  refineFactor: number,
): VectorQuery {
  // nprobes/refineFactor are ignored while there is no vector index (brute force is exact);
  // once one exists (perhaps trained by another process) they apply.
  const q = table
    .query()
    .nearestTo(vector)
    .distanceType("cosine")
    .select([...columns, "_distance"])
    .limit(page.limit)
    .offset(page.offset)
    .nprobes(NPROBES)
    .refineFactor(refineFactor);
  return where ? q.where(where) : q;
}

/** Whole rows for a page of ids (any order; the caller restores it). */
export function rowsByIdQuery(table: Table, ids: readonly string[], columns: readonly string[]): Query {
  return table.query().where(idsWhere(ids)).select([...columns]).limit(ids.length);
}
