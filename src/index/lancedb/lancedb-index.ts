/**
 * The embedded default SearchIndex: one LanceDB table under `<dataDir>/lancedb`, the one the
 * directory's table pointer names ("posts" until a `threadsight reembed`, lancedb/active-table.ts).
 *
 * - Keyword: BM25 over separate full-text indexes on `title` and `content`, queried together
 *   with the title's score weighted {@link TITLE_BOOST}x (as Weaviate's `title^2`), English
 *   stemming and stop words; pages are cut from a candidate window, ties broken by id (paging.ts).
 * - Vector: cosine distance; `score = 1 - distance`. Brute force (exact) below the vector-index
 *   threshold, IVF_RQ with an exact re-rank of what a query returns above it (lancedb/maintenance.ts,
 *   lancedb/queries.ts).
 * - Hybrid: both sides fetched with the same filter (top 200 each per page window) and fused
 *   here (fusion.ts), relative-score by default, so `score` is 0..1. The keyword side starts at
 *   once, while the query vector may still be computed (HybridQuery.vector may be a promise).
 *   Ranking reads ids, scores and row addresses only; whole rows are read for the page alone,
 *   by address (falling back to ids for rows that moved in between). A caller that picks the
 *   page by lead fields (HybridQuery.choose) gets them with the candidates, so only the
 *   picked rows are read.
 * - Freshness: a process sees rows another process (e.g. `threadsight ingest`) committed within
 *   {@link DEFAULT_FRESHNESS_SECONDS} s: the connection re-checks the table version that often.
 * One process writes a directory at a time (lancedb/writer-lock.ts, taken at the first upsert);
 * any number of readers may share it.
 */

import path from "node:path";
import type { Connection, VectorQuery as LanceVectorQuery, Query, Table } from "@lancedb/lancedb";
import { connect } from "@lancedb/lancedb";
import type { Schema as ArrowSchema, Table as ArrowTable } from "apache-arrow";
import type { EnrichedPost, IndexedPost } from "../../model/post.js";
import { checkAborted } from "../abort.js";
import type { AggregateQuery, AggregateResult } from "../aggregate-query.js";
import { engineCall, guardEngine, probe } from "../engine-call.js";
import type { FusionType, Scored } from "../fusion.js";
import { candidateDepth, fuse } from "../fusion.js";
import { mismatchMessage } from "../model-mismatch.js";
import { keywordDepth, stablePage } from "../paging.js";
import { checkAlpha, checkBound, checkPage, checkScan, checkVector } from "../query-checks.js";
import { ScanWindows } from "../scan-window.js";
import type {
  Hit,
  HybridCandidate,
  HybridQuery,
  IndexInfo,
  KeywordQuery,
  ScanQuery,
  SearchIndex,
  SimilarScanPage,
  SimilarScanQuery,
  UpsertResult,
  VectorQuery,
} from "../search-index.js";
import { EmbeddingModelMismatchError, IndexUnavailableError } from "../search-index.js";
import { splitValid } from "../upsert-checks.js";
import { activeTable } from "./active-table.js";
import { aggregateLance } from "./aggregate.js";
import { idsWhere, lanceWhere } from "./filter.js";
import type { IndexingMode } from "./maintenance.js";
import {
  DEFAULT_OPTIMIZE_EVERY_ROWS,
  DEFAULT_VECTOR_INDEX_MIN_ROWS,
  deferredFor,
  LanceMaintenance,
} from "./maintenance.js";
import {
  CHOOSE_COLUMNS,
  keywordQuery,
  pageColumns,
  rowsByIdQuery,
  scanQuery,
  thresholdQuery,
  vectorIndexStats,
  vectorPlan,
  vectorQuery,
} from "./queries.js";
import { announceReader } from "./readers.js";
import { rowsTable } from "./rows.js";
import { fromRow, LAYOUT_VERSION, POST_COLUMNS, postsSchema, readMeta, toRow } from "./schema.js";
import { WriterLock } from "./writer-lock.js";

const ENGINE = "LanceDB";

export { TITLE_BOOST } from "./queries.js";
/** Seconds after which a reader sees another process's writes. */
export const DEFAULT_FRESHNESS_SECONDS = 1;
/** What ranking needs: candidates are ranked on ids and scores (rows carry `_rowid` too), whole rows read per page. */
const ID_COLUMNS = ["id"] as const;

/** Options for {@link LanceDbIndex}. */
export interface LanceDbIndexOptions {
  /** Directory of the LanceDB database (`<dataDir>/lancedb`). */
  dir: string;
  fusion?: FusionType;
  freshnessSeconds?: number;
  vectorIndexMinRows?: number;
  optimizeEveryRows?: number;
  /** Rows per vector index partition (lancedb/maintenance.ts); tests set it for small tables. */
  rowsPerPartition?: number;
  /**
   * When a writer does its index work (lancedb/maintenance.ts): "live" (the default) keeps the
   * indexes current while it writes; "deferred" (a bulk load) does it all at close; "auto"
   * defers while no server reads the directory (lancedb/readers.ts), `threadsight ingest`'s default.
   */
  indexing?: IndexingMode;
  /** This process serves searches: it tells writers in other processes so (lancedb/readers.ts). */
  serving?: boolean;
  /**
   * The table to open instead of the one the directory points at (lancedb/active-table.ts):
   * `threadsight reembed` writes its shadow copy so. Such an index takes a writer lock of its
   * own, so an ingest into the active table may run meanwhile.
   */
  table?: string;
}

interface Opened {
  db: Connection;
  table: Table;
  dimensions: number;
  maintenance: LanceMaintenance;
  lock: WriterLock;
  /** Removes this server's reader mark (serving processes only). */
  withdraw: (() => void) | undefined;
}

/** The LanceDB adapter; see the module comment. */
export class LanceDbIndex implements SearchIndex {
  readonly backend = "lancedb";
  private state: Opened | undefined;
  /** Writes from this process run one at a time (concurrent mergeInserts of one id could both insert it). */
  private writes: Promise<unknown> = Promise.resolve();
  /** The schema writes are built in (see writeSchema). */
  private schemaOf: { table: Table; schema: Promise<ArrowSchema> } | undefined;
  /** Set once the full-text indexes exist (possibly built by another process); they stay. */
  private ftsReady = false;
  /** Scan window widths per filter (scan-window.ts). */
  private readonly scanWindows = new ScanWindows();

  constructor(private readonly opts: LanceDbIndexOptions) {}

  /** `<dataDir>/lancedb` for a data directory. */
  static dirFor(dataDir: string): string {
    return path.join(dataDir, "lancedb");
  }

  async open(embeddingModel: string, dimensions: number): Promise<IndexInfo> {
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError(`dimensions must be a positive whole number, got ${dimensions}`);
    const db = await guardEngine(ENGINE, () =>
      connect(this.opts.dir, { readConsistencyInterval: this.opts.freshnessSeconds ?? DEFAULT_FRESHNESS_SECONDS }),
    );
    try {
      const name = this.opts.table ?? activeTable(this.opts.dir);
      const table = await openOrCreate(db, name, embeddingModel, dimensions);
      const meta = readMeta(await table.schema());
      if (meta.layout !== LAYOUT_VERSION) {
        throw new IndexUnavailableError(
          `${this.opts.dir} holds a table in layout ${meta.layout ?? "unknown"}, this version reads layout ${LAYOUT_VERSION}; re-ingest into a fresh THREADSIGHT_DATA_DIR`,
        );
      }
      if (meta.embeddingModel !== embeddingModel || meta.dimensions !== dimensions) {
        throw new EmbeddingModelMismatchError(
          mismatchMessage(`the index in ${this.opts.dir}`, meta.embeddingModel ?? "unknown", meta.dimensions ?? 0, {
            embeddingModel,
            dimensions,
          }),
        );
      }
      const maintenance = new LanceMaintenance(table, {
        vectorIndexMinRows: this.opts.vectorIndexMinRows ?? DEFAULT_VECTOR_INDEX_MIN_ROWS,
        optimizeEveryRows: this.opts.optimizeEveryRows ?? DEFAULT_OPTIMIZE_EVERY_ROWS,
        rowsPerPartition: this.opts.rowsPerPartition,
        deferred: deferredFor(this.opts.indexing ?? "live", this.opts.dir),
      });
      const withdraw = this.opts.serving === true ? announceReader(this.opts.dir) : undefined;
      const lock = new WriterLock(this.opts.dir, this.opts.table);
      this.state = { db, table, dimensions, maintenance, lock, withdraw };
      return { embeddingModel, dimensions, count: await table.countRows() };
    } catch (err) {
      db.close();
      throw err;
    }
  }

  async upsert(posts: readonly IndexedPost[], signal?: AbortSignal): Promise<UpsertResult> {
    const { table, dimensions, maintenance, lock } = this.opened();
    checkAborted(signal);
    const { valid, failed } = splitValid(posts, dimensions);
    if (valid.length === 0) return { inserted: 0, updated: 0, failed };
    const write = async (): Promise<UpsertResult> => {
      checkAborted(signal);
      lock.acquire();
      // An Arrow table in the stored schema (lancedb/rows.ts), not row objects for LanceDB to convert.
      const schema = await this.writeSchema(table, dimensions);
      // New rows are appended and only rows already stored go through mergeInsert, which joins
      // its batch against every stored id: an ingest of new posts paid a scan of the whole table
      // per batch (test/bench/ingest-upkeep.ts, the 92,912 corpora posts: LanceDB CPU while
      // ingesting ~75 -> ~43 s). Looking the ids up first is safe because this process is the
      // directory's only writer (the lock), its writes run one at a time (this.writes) and ids
      // are unique within a batch. A crash between the two commits leaves the appended rows;
      // the re-run then finds them stored and updates them.
      const stored = new Set(
        (
          await rowsByIdQuery(
            table,
            valid.map((p) => p.id),
            ["id"],
          ).toArray()
        ).map((r) => String(r.id)),
      );
      const fresh = valid.filter((p) => !stored.has(p.id));
      const known = valid.filter((p) => stored.has(p.id));
      if (fresh.length > 0) await table.add(rowsTable(fresh.map(toRow), schema));
      if (known.length > 0)
        await table
          .mergeInsert("id")
          .whenMatchedUpdateAll()
          .whenNotMatchedInsertAll()
          .execute(rowsTable(known.map(toRow), schema));
      await maintenance.afterWrite(valid.length);
      return { inserted: fresh.length, updated: known.length, failed };
    };
    const queued = this.writes.then(write, write);
    this.writes = queued.catch(() => {});
    return engineCall(ENGINE, () => queued, signal);
  }

  /**
   * The schema writes are built in: the one the table was created with (open() refused any
   * other layout or model), made with this module's Arrow classes; LanceDB's own schema object
   * comes from another copy of the Arrow library (its CommonJS build) that these cannot mix with.
   */
  private writeSchema(table: Table, dimensions: number): Promise<ArrowSchema> {
    if (this.schemaOf?.table !== table) {
      this.schemaOf = {
        table,
        schema: table.schema().then((s) => postsSchema(readMeta(s).embeddingModel ?? "", dimensions)),
      };
    }
    return this.schemaOf.schema;
  }

  async keyword(query: KeywordQuery, signal?: AbortSignal): Promise<Hit[]> {
    this.opened();
    checkPage(query);
    const where = lanceWhere(query.filter);
    const depth = keywordDepth(query.offset, query.limit);
    const run = async () => {
      // Rank a window of ids and scores, then read whole rows for the page only.
      const ranked = await this.keywordRanked(query.text, where, depth);
      const page = stablePage(ranked, (h) => h.id, query.offset, query.limit);
      // A native query cannot be cancelled once started (no signal in @lancedb/lancedb 0.37);
      // an abort between stages at least starts nothing more.
      checkAborted(signal);
      return this.withPosts(page, addressesOf(ranked), pageColumns(query.fields));
    };
    return engineCall(ENGINE, () => run(), signal);
  }

  async nearVector(query: VectorQuery, signal?: AbortSignal): Promise<Hit[]> {
    checkPage(query);
    const where = lanceWhere(query.filter);
    const { table, dimensions } = this.opened();
    const columns = pageColumns(query.fields);
    // The statistics (~0.4 ms) are read while the query is embedded; a failure surfaces in `run`,
    // and is dropped if the embedding fails first. Nothing starts for a call already cancelled.
    checkAborted(signal);
    const stats = vectorIndexStats(table);
    stats.catch(() => {});
    const vector = await query.vector;
    checkVector(vector, dimensions);
    const run = async () => {
      const plan = vectorPlan(await stats, "page", query.offset + query.limit);
      return vectorQuery(table, vector, where, query, columns, plan).toArrow();
    };
    const batch = await engineCall(ENGINE, () => run(), signal);
    const posts = postsOf(batch, columns);
    const distances = posts.length === 0 ? [] : column(batch, "_distance");
    return posts.map((post, i) => ({ post, score: 1 - Number(distances[i]) }));
  }

  async hybrid(query: HybridQuery, signal?: AbortSignal): Promise<Hit[]> {
    checkPage(query);
    checkAlpha(query.alpha);
    const { table, dimensions } = this.opened();
    const where = lanceWhere(query.filter);
    const depth = candidateDepth(query.offset, query.limit);
    // Two small columns more per window cost ~0.4 (vector) and ~0.9 ms (keyword); reading the 10
    // chosen rows instead of 30 (their text above all) saves ~4.5 ms: FindLeads on the benchmark
    // index, 92,912 posts, after the embedding: 23.7 instead of 25.3 ms (test/bench/leads-profile.ts).
    const windowColumns = query.choose ? CHOOSE_COLUMNS : ID_COLUMNS;
    const vectorSide = async (): Promise<Ranked[]> => {
      // The index statistics are read while the query may still be being embedded.
      const [vector, stats] = await Promise.all([
        query.vector,
        query.alpha === 0 ? undefined : vectorIndexStats(table),
      ]);
      checkAborted(signal);
      checkVector(vector, dimensions);
      if (query.alpha === 0) return [];
      return ranked(
        vectorQuery(
          table,
          vector,
          where,
          { limit: depth, offset: 0 },
          windowColumns,
          vectorPlan(stats, "window", depth),
        ),
        "_distance",
      );
    };
    const run = async () => {
      // The keyword side does not need the vector: it runs while the query is being embedded.
      const [kw, vec] = await Promise.all([
        query.alpha < 1 ? this.keywordRanked(query.text, where, depth, windowColumns) : Promise.resolve([]),
        vectorSide(),
      ]);
      const fused = fuse(kw, vec, query.alpha, this.opts.fusion ?? "relativeScore").slice(
        query.offset,
        query.offset + query.limit,
      );
      const page = query.choose ? chosen(query.choose, fused, [kw, vec]) : fused;
      checkAborted(signal);
      return this.withPosts(page, addressesOf([...kw, ...vec]), pageColumns(query.fields));
    };
    return engineCall(ENGINE, () => run(), signal);
  }

  async get(ids: readonly string[], signal?: AbortSignal): Promise<EnrichedPost[]> {
    this.opened();
    checkAborted(signal);
    const byId = await engineCall(ENGINE, () => this.readPosts(ids), signal);
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async getIndexed(ids: readonly string[], signal?: AbortSignal): Promise<IndexedPost[]> {
    const { table } = this.opened();
    checkAborted(signal);
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const batch = await engineCall(
      ENGINE,
      () => rowsByIdQuery(table, unique, [...POST_COLUMNS, "vector"]).toArrow(),
      signal,
    );
    const posts = postsOf(batch, POST_COLUMNS);
    const vectors = posts.length === 0 ? [] : column(batch, "vector");
    const byId = new Map(
      posts.map((post, i) => [
        post.id,
        { ...post, vector: Float32Array.from((vectors[i] as { toArray(): ArrayLike<number> }).toArray()) },
      ]),
    );
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async scan(query: ScanQuery, signal?: AbortSignal): Promise<EnrichedPost[]> {
    const { table } = this.opened();
    checkScan(query);
    const where = lanceWhere(query.filter);
    checkAborted(signal);
    const { after, limit } = query;
    return this.scanWindows.page(where ?? "", after?.created, limit, {
      read: async (before) =>
        postsOf(
          await engineCall(ENGINE, () => scanQuery(table, where, after, limit, POST_COLUMNS, before).toArrow(), signal),
          POST_COLUMNS,
        ),
      lastCreated: async () => {
        // Both sort keys are read: LanceDB cannot sort by a column it does not return.
        const keys = await engineCall(
          ENGINE,
          () => scanQuery(table, where, after, limit, ["created", "id"]).toArrow(),
          signal,
        );
        return keys.numRows === 0 ? undefined : Number(keys.getChild("created")!.get(keys.numRows - 1));
      },
    });
  }

  /**
   * The scan's keyset page read as keys only (id, created), then the aggregate's exact threshold
   * search over just those ids: a vector search returns rows by distance, so the page is chosen
   * first and the search only decides which of its posts pass (and reads them whole).
   */
  async scanSimilar(query: SimilarScanQuery, signal?: AbortSignal): Promise<SimilarScanPage> {
    const { table, dimensions } = this.opened();
    checkScan(query);
    checkBound(query.near, dimensions);
    const where = lanceWhere(query.filter);
    checkAborted(signal);
    const run = async (): Promise<SimilarScanPage> => {
      const keys = await scanQuery(table, where, query.after, query.limit, ["id", "created"]).toArrow();
      if (keys.numRows === 0) return { hits: [] };
      const ids = Array.from(column(keys, "id"), String);
      const last = ids.length - 1;
      const next =
        ids.length === query.limit ? { created: Number(column(keys, "created")[last]), id: ids[last]! } : undefined;
      checkAborted(signal);
      const rows = await thresholdQuery(table, query.near, idsWhere(ids), ids.length, POST_COLUMNS).toArrow();
      const distances = rows.numRows === 0 ? [] : (column(rows, "_distance") as ArrayLike<number>);
      const order = new Map(ids.map((id, i) => [id, i]));
      const hits = postsOf(rows, POST_COLUMNS)
        .map((post, i) => ({ post, score: 1 - distances[i]! }))
        .sort((a, b) => order.get(a.post.id)! - order.get(b.post.id)!);
      return { hits, ...(next ? { next } : {}) };
    };
    return engineCall(ENGINE, run, signal);
  }

  async aggregate(query: AggregateQuery, signal?: AbortSignal): Promise<AggregateResult> {
    const { table, dimensions } = this.opened();
    if (query.near) checkVector(query.near.vector, dimensions);
    return engineCall(ENGINE, () => aggregateLance(table, query, signal), signal);
  }

  async count(signal?: AbortSignal): Promise<number> {
    const { table } = this.opened();
    return engineCall(ENGINE, () => table.countRows(), signal);
  }

  async ping(signal?: AbortSignal): Promise<boolean> {
    const table = this.state?.table;
    return probe(async () => table !== undefined && (await table.countRows()) >= 0, signal);
  }

  /** Closes the table; a writer first folds its unindexed rows into the indexes. */
  async close(): Promise<void> {
    const s = this.state;
    this.state = undefined;
    if (!s) return;
    try {
      await this.writes;
      await s.maintenance.stop();
      await s.maintenance.finish();
    } finally {
      s.withdraw?.();
      s.lock.release();
      s.table.close();
      s.db.close();
    }
  }

  /** Folds unindexed rows into the indexes now (close() does it too), after any background run. */
  async optimize(): Promise<void> {
    const { maintenance } = this.opened();
    await guardEngine(ENGINE, async () => {
      await maintenance.idle();
      await maintenance.optimize();
    });
  }

  /** Waits until background index upkeep (training, optimize) has finished, e.g. after an ingest. */
  async indexesSettled(): Promise<void> {
    await this.opened().maintenance.idle();
  }

  private opened(): Opened {
    if (!this.state) throw new Error("LanceDbIndex: call open() first");
    return this.state;
  }

  /** Whole posts for a ranked page of ids, keeping the page's order and scores. */
  private async withPosts(
    page: readonly Scored[],
    addresses: ReadonlyMap<string, bigint>,
    columns: readonly string[],
  ): Promise<Hit[]> {
    const byId = await this.readPosts(
      page.map((h) => h.id),
      addresses,
      columns,
    );
    return page.flatMap(({ id, score }) => {
      const post = byId.get(id);
      return post ? [{ post, score }] : [];
    });
  }

  /**
   * Posts by id. Rows whose address the ranking query returned are read by address (`takeRowIds`:
   * ~2 ms less than the `id IN (...)` query for a page of 11 on the 92,912-post benchmark index,
   * 6.2 vs 8.3 ms, as it skips the id index lookup); a row that is no longer there (the table
   * was compacted in between, or the row rewritten) is read by id like the rest.
   */
  private async readPosts(
    ids: readonly string[],
    addresses: ReadonlyMap<string, bigint> = new Map(),
    columns: readonly string[] = POST_COLUMNS,
  ): Promise<Map<string, EnrichedPost>> {
    const { table } = this.opened();
    const wanted = new Set(ids);
    const out = new Map<string, EnrichedPost>();
    const known = [...wanted].flatMap((id) => addresses.get(id) ?? []);
    if (known.length > 0) {
      try {
        const batch = await table
          .takeRowIds(known)
          .select([...columns])
          .toArrow();
        for (const post of postsOf(batch, columns)) {
          if (wanted.has(post.id)) out.set(post.id, post);
        }
      } catch {
        // Addresses of files compaction removed: the id query below reads those rows.
      }
    }
    const missing = [...wanted].filter((id) => !out.has(id));
    if (missing.length > 0) {
      const batch = await rowsByIdQuery(table, missing, columns).toArrow();
      for (const post of postsOf(batch, columns)) out.set(post.id, post);
    }
    return out;
  }

  private async keywordRanked(
    text: string,
    where: string | undefined,
    limit: number,
    columns: readonly string[] = ID_COLUMNS,
  ): Promise<Ranked[]> {
    const { table } = this.opened();
    if (text.trim() === "") return [];
    // The full-text indexes appear with the first rows; an empty table has nothing to match.
    if (!this.ftsReady) {
      const names = await this.opened().maintenance.indexNames();
      this.ftsReady = names.has("title_idx") && names.has("content_idx");
      if (!this.ftsReady) return [];
    }
    return ranked(keywordQuery(table, text, where, limit, columns), "_score");
  }
}

/** What a post's unread columns hold when a page reads only some (`fields: "result"` or `"lead"`). */
const UNREAD: Readonly<Record<string, unknown>> = {
  source: "",
  native_id: "",
  author: "",
  created: 0,
  sentiment: "",
  sentiment_score: 0,
  lead_type: "",
  lead_score: 0,
  pain_point: "",
  opportunity: "",
  industry: "",
  target_product: "",
  topic_id: "",
};

/**
 * The posts of a batch holding `columns` (columns not read get {@link UNREAD}'s values), read
 * column by column: Arrow's row objects resolve every field through a proxy, and a page of 11
 * by row objects took ~0.45 ms more (query 7.43 vs 7.17 ms, posts 0.33 vs 0.14 ms, medians of
 * 360 vector pages on the 92,912-post benchmark index). An empty result may come without
 * columns, so it is answered before any is looked up.
 */
function postsOf(batch: ArrowTable, columns: readonly string[]): EnrichedPost[] {
  if (batch.numRows === 0) return [];
  const values = columns.map((c) => [c, column(batch, c)] as const);
  const out = new Array<EnrichedPost>(batch.numRows);
  for (let i = 0; i < batch.numRows; i++) {
    const row: Record<string, unknown> = columns === POST_COLUMNS ? {} : { ...UNREAD };
    for (const [c, v] of values) row[c] = v[i];
    out[i] = fromRow(row);
  }
  return out;
}

/** A ranking candidate, its row's address (`_rowid`) when it was ranked, and its lead fields when the window read them. */
interface Ranked extends Scored {
  address: bigint;
  leadType?: string;
  leadScore?: number;
}

/**
 * Runs a ranking query and reads ids, scores (`_score`, or 1 - `_distance`) and row addresses
 * from its Arrow columns: ~1 ms less than row objects for a window of 200.
 */
async function ranked(query: Query | LanceVectorQuery, scoreColumn: "_score" | "_distance"): Promise<Ranked[]> {
  const batch = await query.withRowId().toArrow();
  if (batch.numRows === 0) return [];
  const ids = column(batch, "id");
  const scores = column(batch, scoreColumn);
  const addresses = column(batch, "_rowid");
  const leadTypes = batch.getChild("lead_type")?.toArray() as ArrayLike<unknown> | undefined;
  const leadScores = batch.getChild("lead_score")?.toArray() as ArrayLike<unknown> | undefined;
  const out: Ranked[] = new Array(batch.numRows);
  for (let i = 0; i < batch.numRows; i++) {
    const raw = Number(scores[i]);
    out[i] = {
      id: String(ids[i]),
      score: scoreColumn === "_score" ? raw : 1 - raw,
      address: BigInt(addresses[i] as bigint),
    };
    if (leadTypes && leadScores) {
      out[i]!.leadType = String(leadTypes[i]);
      out[i]!.leadScore = Number(leadScores[i]);
    }
  }
  return out;
}

/** What `choose` keeps of the fused page, given the lead fields the windows read for each candidate. */
function chosen(
  choose: NonNullable<HybridQuery["choose"]>,
  page: readonly Scored[],
  sides: readonly (readonly Ranked[])[],
): Scored[] {
  const byId = new Map<string, Ranked>();
  for (const side of sides) for (const c of side) if (!byId.has(c.id)) byId.set(c.id, c);
  const candidates = page.map(({ id, score }): HybridCandidate => {
    const c = byId.get(id);
    return { id, score, leadType: c?.leadType ?? "", leadScore: c?.leadScore ?? 0 };
  });
  return choose(candidates).map(({ id, score }) => ({ id, score }));
}

function column(batch: ArrowTable, name: string): ArrayLike<unknown> {
  const child = batch.getChild(name);
  if (child === null) throw new Error(`LanceDB returned no ${name} column`);
  return child.toArray() as ArrayLike<unknown>;
}

/** id -> row address, for reading a page by address. */
function addressesOf(candidates: readonly Ranked[]): Map<string, bigint> {
  return new Map(candidates.map((c) => [c.id, c.address]));
}

async function openOrCreate(db: Connection, name: string, embeddingModel: string, dimensions: number): Promise<Table> {
  if ((await db.tableNames()).includes(name)) return db.openTable(name);
  try {
    return await db.createEmptyTable(name, postsSchema(embeddingModel, dimensions), { mode: "create" });
  } catch (err) {
    // Another process created it between the check and the create.
    if ((await db.tableNames()).includes(name)) return db.openTable(name);
    throw err;
  }
}
