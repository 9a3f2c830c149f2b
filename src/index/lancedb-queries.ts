/**
 * The LanceDB queries behind every search, built in one place so that the adapter
 * (lancedb-index.ts) and the benchmark's engine floor (test/bench/floor.ts) issue exactly the
 * same requests with the same parameters.
 *
 * Vector queries depend on the vector index the table has (lancedb-maintenance.ts trains
 * IVF_HNSW_SQ; directories written by earlier versions may still hold IVF_PQ until their writer
 * retrains), so {@link vectorPlan} picks the parameters from the index's statistics, read per
 * query (~0.1 ms, and the hybrid path reads them while the query is still being embedded).
 *
 * - IVF_HNSW_SQ. Distances come from 8-bit codes, and LanceDB 0.37 reports them on another
 *   scale than the exact distances of the flat scan of rows written since the last optimize
 *   (about twice the cosine distance, squared L2 of unit vectors), so they are comparable only
 *   among indexed rows (LanceDB 0.37 re-reads the vectors itself while some rows are outside
 *   the index; the plan does not rely on that). A hybrid window therefore skips the exact
 *   re-rank only while the index covers every row: relative-score fusion min-max normalises
 *   each side and ranked fusion reads ranks only, so a common scale factor does not change the
 *   fused answer (SQ's own error: mean 3e-4, max 2e-3 in cosine distance). Otherwise, and always for
 *   VectorSearch pages (whose score is the cosine similarity itself), `refineFactor(1)` re-reads
 *   the full vectors of the returned rows and the distances are exact. `ef` (HNSW candidates
 *   kept while searching) is at least {@link HNSW_MIN_EF}. Measured on the 92,912-post
 *   benchmark index (40 held-out questions, IVF_PQ and IVF_HNSW_SQ copies queried in
 *   interleaved rounds on a loaded machine, top 10 compared with exact brute-force vectors):
 *   hybrid window of 200, no re-rank: 11.0 ms median, 11 ms CPU (IVF_PQ with factor 2: 17.4 ms,
 *   21 ms CPU), fused top 10 agreeing 99.3% with the exact answer (IVF_PQ: 93.0%); re-ranked
 *   (factor 1) 15-17 ms. VectorSearch page of 11 with `ef` 100 and factor 1: 12.6 ms, top-10
 *   recall 99.8% (IVF_PQ, factor 10: 15.7 ms, 93%); `ef` 50 would save ~1 ms at 97.5% recall.
 *   All IVF partitions are probed up to NPROBES; probing 2 of the 4 cut recall to 95%.
 * - IVF_PQ (older directories): PQ codes rank approximately and the re-read of
 *   `limit * refineFactor` full vectors is the expensive part; hybrid windows use factor 2 (93%
 *   agreement at about half the cost of 10), pages 10 (93% recall; 81% at 2).
 * - No vector index (below the training threshold): brute force, exact; the knobs are ignored.
 */
import { MultiMatchQuery } from "@lancedb/lancedb";
import type { IndexStatistics, Query, Table, VectorQuery } from "@lancedb/lancedb";
import { idsWhere } from "./lancedb-filter.js";
import { POST_COLUMNS } from "./lancedb-schema.js";
import { LEAD_FIELDS } from "./search-index.js";

/** Weight of a title match relative to a content match in keyword scoring. */
export const TITLE_BOOST = 2;
/** IVF partitions probed: every one up to this many (lancedb-maintenance.ts sizes them). */
export const NPROBES = 20;
/** Least HNSW search breadth; a deeper page raises it to the rows it must return. */
export const HNSW_MIN_EF = 100;
/** Exact re-rank factor for VectorSearch pages on an IVF_PQ index. */
export const PQ_PAGE_REFINE_FACTOR = 10;
/** Exact re-rank factor for the vector leg of a hybrid query on an IVF_PQ index. */
export const PQ_HYBRID_REFINE_FACTOR = 2;
/** Name LanceDB gives the vector column's index. */
export const VECTOR_INDEX = "vector_idx";

/** What a vector query is for: a hybrid candidate window (ranking only) or a scored page. */
export type VectorUse = "window" | "page";

/** Search knobs for one vector query; absent ones are left to LanceDB. */
export interface VectorPlan {
  refineFactor?: number;
  ef?: number;
}

/**
 * The knobs for a query returning `rows` rows (limit + offset) for `use`, given the vector
 * index's statistics (undefined: no index yet). See the module comment for the figures.
 */
export function vectorPlan(stats: IndexStatistics | undefined, use: VectorUse, rows: number): VectorPlan {
  if (stats === undefined) return {};
  if (stats.indexType === "IVF_PQ") return { refineFactor: use === "page" ? PQ_PAGE_REFINE_FACTOR : PQ_HYBRID_REFINE_FACTOR };
  const ef = Math.max(HNSW_MIN_EF, rows);
  const exactNeeded = use === "page" || stats.numUnindexedRows > 0 || stats.indexType !== "IVF_HNSW_SQ";
  return exactNeeded ? { ef, refineFactor: 1 } : { ef };
}

/** The vector index's statistics, undefined while there is none. */
export function vectorIndexStats(table: Table): Promise<IndexStatistics | undefined> {
  // Without this LanceDB copies the IVF centroids into every statistics call (and logs once
  // that it will stop doing so); the plan needs only the counts and the type.
  process.env.LANCE_INCLUDE_VECTOR_CENTROIDS ??= "false";
  return table.indexStats(VECTOR_INDEX);
}

/** BM25 over title (boosted) and content; rows carry `_score`. */
export function keywordQuery(table: Table, text: string, where: string | undefined, limit: number, columns: readonly string[]): Query {
  const fts = new MultiMatchQuery(text, ["title", "content"], { boosts: [TITLE_BOOST, 1] });
  const q = table.query().fullTextSearch(fts).select([...columns, "_score"]).limit(limit);
  return where ? q.where(where) : q;
}

/**
 * Cosine nearest neighbours; rows carry `_distance`: 1 - cosine similarity when the plan
 * re-ranks exactly or there is no index, otherwise only comparable within this result (see the
 * module comment).
 */
export function vectorQuery(
  table: Table,
  vector: Float32Array,
  where: string | undefined,
  page: { limit: number; offset: number },
  columns: readonly string[],
  plan: VectorPlan,
): VectorQuery {
  let q = table
    .query()
    .nearestTo(vector)
    .distanceType("cosine")
    .select([...columns, "_distance"])
    .limit(page.limit)
    .offset(page.offset)
    .nprobes(NPROBES);
  if (plan.refineFactor !== undefined) q = q.refineFactor(plan.refineFactor);
  if (plan.ef !== undefined) q = q.ef(plan.ef);
  return where ? q.where(where) : q;
}

/**
 * The columns of RESULT_FIELDS (search-index.ts; same names in the table). Reading 9 columns
 * instead of all 20 takes about half as long for a page of 11 (5.7 vs 12.1 ms by row address on
 * the benchmark index, heavily loaded machine): each column is its own read.
 */
export const RESULT_COLUMNS = ["id", "title", "content", "subforum", "upvotes", "comments", "created", "url", "sentiment"] as const;

/**
 * The columns of LEAD_FIELDS, in the table's snake_case: 14 of 20, about 0.6 ms less for
 * FindLeads' page of 10 (3.9 vs 4.5 ms by row address on the benchmark index).
 */
export const LEAD_COLUMNS: readonly string[] = LEAD_FIELDS.map((field) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/**
 * What a hybrid window reads when its caller picks the page by lead fields
 * (HybridQuery.choose): ranking candidates carry them, so only the picked rows are read whole.
 */
export const CHOOSE_COLUMNS = ["id", "lead_type", "lead_score"] as const;

/** The columns a page reads for the `fields` a query asked for. */
export function pageColumns(fields: "all" | "result" | "lead" | undefined): readonly string[] {
  return fields === "result" ? RESULT_COLUMNS : fields === "lead" ? LEAD_COLUMNS : POST_COLUMNS;
}

/** Whole rows for a page of ids (any order; the caller restores it). */
export function rowsByIdQuery(table: Table, ids: readonly string[], columns: readonly string[]): Query {
  return table.query().where(idsWhere(ids)).select([...columns]).limit(ids.length);
}
