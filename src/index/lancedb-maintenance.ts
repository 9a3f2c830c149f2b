/**
 * Keeps the LanceDB table's indexes in step with its data. Run by the writing process after
 * each upsert; readers never build indexes.
 *
 * - Scalar (btree) indexes on `id` (mergeInsert's join key), `created` and `subforum`, and
 *   full-text (BM25) indexes on `title` and `content`, are created with the first rows.
 * - The vector index (IVF_PQ, cosine) is trained once the table holds `vectorIndexMinRows`
 *   rows. Below that, vector search is brute force, which is exact and, at that size, fast.
 * - Rows written after an index was built are still found (LanceDB scans unindexed rows
 *   flat), but a flat full-text scan costs ~30 ms per 1,000 rows, so `optimize()` folds them
 *   into the indexes once max(`optimizeEveryRows`, 5% of the table) rows were written since the
 *   last run (about 0.2-0.7 s per run at 10k rows), and when the writer closes.
 */
import { Index } from "@lancedb/lancedb";
import type { Table } from "@lancedb/lancedb";

/** Default row count at which the vector index is trained (brute force below it). */
export const DEFAULT_VECTOR_INDEX_MIN_ROWS = 20_000;
/** Default minimum number of written rows between optimize() runs. */
export const DEFAULT_OPTIMIZE_EVERY_ROWS = 2_000;
/** ...or this share of the table, whichever is larger, so the cost stays a small fraction. */
const OPTIMIZE_TABLE_SHARE = 0.05;
/** Versions older than this are pruned by optimize(); readers refresh far more often. */
const PRUNE_OLDER_THAN_MS = 10 * 60_000;

/** Tokenizer settings for both text columns: English stemming and stop words. */
const FTS_OPTIONS = { stem: true, removeStopWords: true, language: "English", lowercase: true, withPosition: false };

/** Tuning knobs; see the module comment. */
export interface MaintenanceOptions {
  vectorIndexMinRows: number;
  optimizeEveryRows: number;
}

/** Index names as LanceDB derives them from the column. */
const indexName = (column: string): string => `${column}_idx`;

/** Tracks what exists and what is due, for one table in one writing process. */
export class LanceMaintenance {
  private rowsSinceOptimize = 0;

  constructor(
    private readonly table: Table,
    private readonly dimensions: number,
    private readonly opts: MaintenanceOptions,
  ) {}

  /** Names of the indexes the table has now. */
  async indexNames(): Promise<Set<string>> {
    return new Set((await this.table.listIndices()).map((i) => i.name));
  }

  /** Creates whatever indexes are missing and due, then optimises when enough rows arrived. */
  async afterWrite(rowsWritten: number): Promise<void> {
    const rows = await this.table.countRows();
    if (rows === 0) return;
    const have = await this.indexNames();
    let created = false;
    for (const column of ["id", "created", "subforum"]) {
      if (!have.has(indexName(column))) {
        await this.table.createIndex(column, { config: Index.btree() });
        created = true;
      }
    }
    for (const column of ["title", "content"]) {
      if (!have.has(indexName(column))) {
        await this.table.createIndex(column, { config: Index.fts(FTS_OPTIONS) });
        created = true;
      }
    }
    if (!have.has(indexName("vector")) && rows >= this.opts.vectorIndexMinRows) {
      await this.table.createIndex("vector", { config: Index.ivfPq(this.ivfPqOptions(rows)) });
      created = true;
    }
    this.rowsSinceOptimize += rowsWritten;
    if (created) this.rowsSinceOptimize = 0;
    const due = Math.max(this.opts.optimizeEveryRows, Math.floor(rows * OPTIMIZE_TABLE_SHARE));
    if (this.rowsSinceOptimize >= due) await this.optimize();
  }

  /** Rows this process wrote that may not be in the indexes yet. */
  get pendingRows(): number {
    return this.rowsSinceOptimize;
  }

  /** Compacts files, adds unindexed rows to every index and prunes old versions. */
  async optimize(): Promise<void> {
    this.rowsSinceOptimize = 0;
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - PRUNE_OLDER_THAN_MS) });
  }

  private ivfPqOptions(rows: number) {
    return {
      distanceType: "cosine" as const,
      numPartitions: Math.max(1, Math.round(Math.sqrt(rows))),
      numSubVectors: subVectors(this.dimensions),
    };
  }
}

/** PQ sub-vector count: the largest divisor of `dims` that gives sub-vectors of >= 8 floats. */
export function subVectors(dims: number): number {
  for (let n = Math.max(1, Math.floor(dims / 8)); n > 1; n--) {
    if (dims % n === 0) return n;
  }
  return 1;
}
