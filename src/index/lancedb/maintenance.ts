/**
 * Keeps the LanceDB table's indexes in step with its data. Run by the writing process after
 * each upsert; readers never build indexes. Each rule, with the figures behind it, is in
 * docs/decisions/0003-deferred-bulk-indexing.md ("The upkeep rules").
 *
 * - Scalar and full-text indexes are created with the first rows: keyword search and FindLeads need them.
 * - The vector index (IVF_RQ, cosine, ~{@link ROWS_PER_PARTITION} rows a partition) is trained at
 *   `vectorIndexMinRows` rows and retrained when the table calls for twice its partitions; the
 *   row count it was trained at is kept in the column's metadata ({@link TRAINED_ROWS_KEY}).
 * - `optimize()` folds rows written since the last run into the indexes once
 *   max(`optimizeEveryRows`, 20% of the table) accumulate, and at close, in the background, one
 *   run at a time; a committed row is searchable at once either way.
 * - Deferred (a bulk load) keeps only the `id` btree current and does the rest once at close;
 *   `threadsight ingest` defers while no server reads the directory (lancedb/readers.ts).
 */

import type { Table } from "@lancedb/lancedb";
import { Index } from "@lancedb/lancedb";
import { serverReading } from "./readers.js";

/** The vector index type trained here, as LanceDB's index statistics name it. */
export const VECTOR_INDEX_TYPE = "IVF_RQ";
/**
 * Rows per IVF partition of the vector index. Queries probe up to NPROBES (lancedb/queries.ts)
 * partitions, i.e. all of them up to ~500k rows.
 */
export const ROWS_PER_PARTITION = 25_000;
/** Field metadata key of the `vector` column: the row count its index was trained at. */
export const TRAINED_ROWS_KEY = "threadsight.vector_index_trained_rows";
/** Default row count at which the vector index is trained (brute force below it). */
export const DEFAULT_VECTOR_INDEX_MIN_ROWS = 20_000;
/** Default minimum number of written rows between optimize() runs. */
export const DEFAULT_OPTIMIZE_EVERY_ROWS = 2_000;
/** ...or this share of the table, whichever is larger (module comment). */
const OPTIMIZE_TABLE_SHARE = 0.2;
/** Versions older than this are pruned by optimize(); readers refresh far more often. */
const PRUNE_OLDER_THAN_MS = 10 * 60_000;

/** Tokenizer settings for both text columns: English stemming and stop words. */
const FTS_OPTIONS = { stem: true, removeStopWords: true, language: "English", lowercase: true, withPosition: false };

/** Tuning knobs; see the module comment. */
export interface MaintenanceOptions {
  vectorIndexMinRows: number;
  optimizeEveryRows: number;
  /** Rows per IVF partition; default {@link ROWS_PER_PARTITION} (tests use small tables). */
  rowsPerPartition?: number;
  /**
   * A bulk load: no background runs while writing; {@link LanceMaintenance.finish} brings every
   * index up to date once, at the end (see the module comment). A function is asked at each
   * write (`threadsight ingest`'s default: defer while no server reads the directory); once it
   * says no, this writer keeps its indexes current until it closes.
   */
  deferred?: boolean | (() => boolean);
}

/** When a writer does its index work; see LanceDbIndexOptions.indexing (lancedb-index.ts). */
export const INDEXING_MODES = ["live", "deferred", "auto"] as const;
export type IndexingMode = (typeof INDEXING_MODES)[number];

/** {@link MaintenanceOptions.deferred} for a writer to the LanceDB directory `dir`. */
export function deferredFor(mode: IndexingMode, dir: string): boolean | (() => boolean) {
  return mode === "auto" ? () => !serverReading(dir) : mode === "deferred";
}

/** Index names as LanceDB derives them from the column. */
const indexName = (column: string): string => `${column}_idx`;

/** Delay before a background run starts, so a burst of writes is followed by one run. */
const BACKGROUND_DELAY_MS = 250;

/** Tracks what exists and what is due, for one table in one writing process. */
export class LanceMaintenance {
  private rowsSinceOptimize = 0;
  /** The background run in progress (or waiting for its start delay). */
  private running: Promise<void> | undefined;
  /** Work became due while a run was going: run once more after it. */
  private again = false;
  private closed = false;
  /** The last background run's failure, if it failed (cleared by a successful run). */
  lastError: Error | undefined;
  /** Rows the vector index was trained at, once read or trained here. */
  private trainedRows: number | undefined;
  /** Set by this process's first write, which also counts the rows an earlier writer left unindexed. */
  private wrote = false;
  /** Set once this writer keeps its indexes current; it never goes back to deferring. */
  private live = false;

  constructor(
    private readonly table: Table,
    private readonly opts: MaintenanceOptions,
  ) {}

  /** Names of the indexes the table has now. */
  async indexNames(): Promise<Set<string>> {
    return new Set((await this.table.listIndices()).map((i) => i.name));
  }

  /**
   * After a write: creates missing scalar and full-text indexes now, and schedules vector-index
   * training and optimize in the background when they are due.
   */
  async afterWrite(rowsWritten: number): Promise<void> {
    this.rowsSinceOptimize += rowsWritten;
    const have = await this.indexNames();
    for (const column of ["id", "created", "subforum", "lead_score"]) {
      if (!have.has(indexName(column))) await this.table.createIndex(column, { config: Index.btree() });
    }
    if (!have.has(indexName("lead_type"))) await this.table.createIndex("lead_type", { config: Index.bitmap() });
    for (const column of ["title", "content"]) {
      if (!have.has(indexName(column))) await this.table.createIndex(column, { config: Index.fts(FTS_OPTIONS) });
    }
    if (!this.wrote) {
      // A killed ingest (or a deferred one) can leave many rows outside the indexes; counting
      // only this process's writes would leave them there until it had written 20% more.
      this.wrote = true;
      const unindexed = (await this.table.indexStats(indexName("content")))?.numUnindexedRows ?? 0;
      this.rowsSinceOptimize = Math.max(this.rowsSinceOptimize, unindexed);
    }
    const rows = await this.table.countRows();
    if (this.deferring()) {
      await this.keepIdIndex(rows);
      return;
    }
    if ((await this.vectorIndexDue(rows)) || this.optimizeDue(rows)) this.schedule();
  }

  /**
   * Whether index work waits for the close. Going live is one-way: a deferring writer's id
   * rebuilds run on the write path because no background run can race them, which holds only
   * while it has never started one.
   */
  private deferring(): boolean {
    if (this.live) return false;
    const { deferred } = this.opts;
    if (deferred === true || (typeof deferred === "function" && deferred())) return true;
    this.live = true;
    return false;
  }

  /**
   * Deferred mode: rebuilds the `id` btree alone once the rows outside it pass the optimize
   * share. Every upsert looks its ids up (lancedb-index.ts) and rows outside the btree are
   * scanned flat, so each look-up grew with everything written since the first batch:
   * quadratic over a bulk load (module comment). A rebuild reads only the `id` column and
   * rewrites no data; at geometric intervals they sum to a few builds at the final size.
   */
  private async keepIdIndex(rows: number): Promise<void> {
    const outside = (await this.table.indexStats(indexName("id")))?.numUnindexedRows ?? 0;
    if (outside >= this.foldInThreshold(rows)) await restoreIdIndex(this.table);
  }

  /**
   * A vector index is due when the table is big enough and has none, one of another type, or one
   * trained for half the partitions (or fewer) that the table now calls for.
   */
  private async vectorIndexDue(rows: number): Promise<boolean> {
    if (rows < this.opts.vectorIndexMinRows) return false;
    if ((await this.table.indexStats(indexName("vector")))?.indexType !== VECTOR_INDEX_TYPE) return true;
    this.trainedRows ??= (await vectorIndexTrainedRows(this.table)) ?? this.opts.vectorIndexMinRows;
    return this.partitionsFor(rows) >= 2 * this.partitionsFor(this.trainedRows);
  }

  private partitionsFor(rows: number): number {
    return vectorIndexOptions(rows, this.opts.rowsPerPartition).numPartitions;
  }

  /** Waits for the background run in progress, if any (and the one it scheduled). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops scheduling background runs and waits for the one in progress. */
  async stop(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  /**
   * For a closing writer, after {@link stop}: folds the rows it left unindexed into the indexes
   * and trains the vector index if it is due (a deferred load trains it here, once, at its final
   * size). Compacting first lets the training read the few compacted files.
   */
  async finish(): Promise<void> {
    // Readers never build indexes; only a process that wrote here does.
    if (!this.wrote) return;
    if (this.rowsSinceOptimize > 0) await this.optimize();
    if (await this.vectorIndexDue(await this.table.countRows())) await this.trainVectorIndex();
  }

  private optimizeDue(rows: number): boolean {
    return this.rowsSinceOptimize >= this.foldInThreshold(rows);
  }

  /** Rows left outside an index that make folding them in due, for a table of `rows` rows. */
  private foldInThreshold(rows: number): number {
    return Math.max(this.opts.optimizeEveryRows, Math.floor(rows * OPTIMIZE_TABLE_SHARE));
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await new Promise((r) => setTimeout(r, BACKGROUND_DELAY_MS));
          if (this.closed) return;
          try {
            await this.upkeep();
            this.lastError = undefined;
          } catch (err) {
            this.lastError = err as Error;
          }
        } while (this.again && !this.closed);
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** Trains the vector index when due, else optimises when due. */
  private async upkeep(): Promise<void> {
    const rows = await this.table.countRows();
    if (await this.vectorIndexDue(rows)) await this.trainVectorIndex();
    else if (this.optimizeDue(rows)) await this.optimize();
  }

  /** Trains (or retrains) the vector index over the table as it is now. */
  private async trainVectorIndex(): Promise<void> {
    const rows = await this.table.countRows();
    // Rows written during training stay unindexed until the next optimize, which the
    // counter still makes due. Replacing an older index is one commit: readers switch over.
    await this.table.createIndex("vector", {
      config: Index.ivfRq(vectorIndexOptions(rows, this.opts.rowsPerPartition)),
      replace: true,
    });
    // Kept here first: if recording it fails, this writer still does not retrain again.
    this.trainedRows = rows;
    await this.table.updateFieldMetadata([{ path: "vector", metadata: { [TRAINED_ROWS_KEY]: String(rows) } }]);
  }

  /** Compacts files, adds unindexed rows to every index and prunes old versions. */
  async optimize(): Promise<void> {
    const counted = this.rowsSinceOptimize;
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - PRUNE_OLDER_THAN_MS) });
    // Rows written while it ran may have missed it; they stay counted.
    this.rowsSinceOptimize -= Math.min(counted, this.rowsSinceOptimize);
  }
}

/**
 * After a topic re-tag (a mergeInsert of only `id` and `topic_id`, trends.ts): the rows
 * kept their places, so every index stays valid except the one on `id`, which LanceDB leaves
 * behind because the join column is written again. Rebuilds that one alone; a compacting
 * optimize() there cost the whole table again (7.6 s at 62,888 rows, searches slowed to ~1 s
 * while it ran) for nothing the re-tag had spoiled.
 */
export async function restoreIdIndex(table: Table): Promise<void> {
  await table.createIndex("id", { config: Index.btree(), replace: true });
}

/** Bits per dimension of the RaBitQ codes: 1 (the default) ranked a 200-row window's top 10 68% right unrefined, 4 93%. */
export const RQ_BITS = 4;

/** IVF_RQ settings for a table of `rows` rows. */
export function vectorIndexOptions(rows: number, rowsPerPartition = ROWS_PER_PARTITION) {
  return {
    distanceType: "cosine" as const,
    numPartitions: Math.max(1, Math.round(rows / rowsPerPartition)),
    numBits: RQ_BITS,
  };
}

/** The row count `table`'s vector index was trained at, as recorded; undefined if not recorded. */
export async function vectorIndexTrainedRows(table: Table): Promise<number | undefined> {
  const recorded = (await table.schema()).fields.find((f) => f.name === "vector")?.metadata.get(TRAINED_ROWS_KEY);
  const rows = Number(recorded);
  return recorded !== undefined && Number.isSafeInteger(rows) && rows > 0 ? rows : undefined;
}
