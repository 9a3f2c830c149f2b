/**
 * The LanceDB queries behind every search, built in one place so that the adapter
 * (lancedb-index.ts) and the benchmark's engine floor (test/bench/floor.ts) issue exactly the
 * same requests with the same parameters.
 *
 * Vector queries depend on the vector index the table has (lancedb/maintenance.ts trains
 * IVF_RQ; directories written by earlier versions may still hold IVF_HNSW_SQ or IVF_PQ until
 * their writer retrains), so {@link vectorPlan} picks the parameters from the index's statistics,
 * read per query (~0.1 ms, read while the query is still being embedded).
 *
 * - IVF_RQ (4-bit RaBitQ codes). Every query re-reads the full vectors of the rows it returns
 *   (`refineFactor`), so distances are exact cosine distances whether or not a row is indexed
 *   yet. Hybrid windows (ranking only) re-read exactly the window: factor 1; VectorSearch pages,
 *   whose score is the cosine similarity itself and whose order must be right from the first
 *   row, re-read twice the page (factor 2). Measured on the 92,912-post benchmark index (40
 *   held-out questions, top 10 compared with exact brute-force vectors): window of 200 with
 *   factor 1, 6.6 ms, top 10 all exact, 95.9% of the exact 200 in it (unrefined: 4.4 ms, top 10
 *   93%); page of 10 with factor 2, 6.6 ms, recall@10 1.000. All IVF partitions are probed up
 *   to NPROBES.
 * - IVF_HNSW_SQ (older directories). Distances come from 8-bit codes on another scale than the
 *   exact distances of rows written since the last optimize, so they are comparable only among
 *   indexed rows: a hybrid window skips the exact re-rank only while the index covers every row;
 *   pages always re-rank (factor 1). `ef` (HNSW candidates kept while searching) is at least
 *   {@link HNSW_MIN_EF}: page of 11 with `ef` 100, recall@10 99.8%.
 * - IVF_PQ (older directories): PQ codes rank approximately and the re-read of
 *   `limit * refineFactor` full vectors is the expensive part; hybrid windows use factor 2 (93%
 *   agreement at about half the cost of 10), pages 10 (93% recall; 81% at 2).
 * - No vector index (below the training threshold): brute force, exact; the knobs are ignored.
 */

import type { IndexStatistics, Query, Table, VectorQuery } from "@lancedb/lancedb";
import { MultiMatchQuery } from "@lancedb/lancedb";
import type { ScanCursor } from "../search-index.js";
import { LEAD_FIELDS } from "../search-index.js";
import { afterWhere, idsWhere, sqlNumber } from "./filter.js";
import { POST_COLUMNS } from "./schema.js";

/** Weight of a title match relative to a content match in keyword scoring. */
export const TITLE_BOOST = 2;
/** IVF partitions probed: every one up to this many (lancedb/maintenance.ts sizes them). */
export const NPROBES = 20;
/** Least HNSW search breadth; a deeper page raises it to the rows it must return. */
export const HNSW_MIN_EF = 100;
/** Exact re-rank factor for VectorSearch pages on an IVF_PQ index. */
export const PQ_PAGE_REFINE_FACTOR = 10;
/** Exact re-rank factor for the vector leg of a hybrid query on an IVF_PQ index. */
export const PQ_HYBRID_REFINE_FACTOR = 2;
/** Exact re-rank factors on an IVF_RQ index: VectorSearch pages, and hybrid windows. */
export const RQ_PAGE_REFINE_FACTOR = 2;
export const RQ_WINDOW_REFINE_FACTOR = 1;
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
  if (stats.indexType === "IVF_RQ")
    return { refineFactor: use === "page" ? RQ_PAGE_REFINE_FACTOR : RQ_WINDOW_REFINE_FACTOR };
  if (stats.indexType === "IVF_PQ")
    return { refineFactor: use === "page" ? PQ_PAGE_REFINE_FACTOR : PQ_HYBRID_REFINE_FACTOR };
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
export function keywordQuery(
  table: Table,
  text: string,
  where: string | undefined,
  limit: number,
  columns: readonly string[],
): Query {
  const fts = new MultiMatchQuery(text, ["title", "content"], { boosts: [TITLE_BOOST, 1] });
  const q = table
    .query()
    .fullTextSearch(fts)
    .select([...columns, "_score"])
    .limit(limit);
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
export const RESULT_COLUMNS = [
  "id",
  "title",
  "content",
  "subforum",
  "upvotes",
  "comments",
  "created",
  "url",
  "sentiment",
] as const;

/**
 * The columns of LEAD_FIELDS, in the table's snake_case: 14 of 20, about 0.6 ms less for
 * FindLeads' page of 10 (3.9 vs 4.5 ms by row address on the benchmark index).
 */
export const LEAD_COLUMNS: readonly string[] = LEAD_FIELDS.map((field) =>
  field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
);

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
  return table
    .query()
    .where(idsWhere(ids))
    .select([...columns])
    .limit(ids.length);
}

/**
 * One keyset page of a scan: the rows matching `where` after `after` (and created before
 * `before`, when given), sorted by created, then id, the first `limit`. The engine keeps only
 * the top `limit` rows while it sorts (a TopK sort), so a page costs one filtered pass over the
 * rows in range, in constant memory; `before` bounds that range (scan-window.ts).
 */
export function scanQuery(
  table: Table,
  where: string | undefined,
  after: ScanCursor | undefined,
  limit: number,
  columns: readonly string[],
  before?: number,
): Query {
  const predicate = [
    where,
    after === undefined ? undefined : afterWhere(after),
    before === undefined ? undefined : `created < ${sqlNumber(Math.ceil(before))}`,
  ]
    .filter((p): p is string => p !== undefined)
    .map((p) => `(${p})`)
    .join(" AND ");
  const q = table
    .query()
    .select([...columns])
    .orderBy([
      { columnName: "created", ascending: true, nullsFirst: false },
      { columnName: "id", ascending: true, nullsFirst: false },
    ])
    .limit(limit);
  return predicate === "" ? q : q.where(predicate);
}
