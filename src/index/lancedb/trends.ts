/**
 * TrendStore over the embedded LanceDB posts table (the same `<dataDir>/lancedb` directory and
 * `posts` table as LanceDbIndex). Aggregates come only from the per-(topic, day) rollup table
 * (src/index/lancedb/rollups.ts), gated by src/index/rollup-gate.ts: ListTrends' window and
 * baselines are folded from a snapshot of that table held until its version moves. Keyword
 * posts for the window and the previous one (topPostsFor) are ranked in one columnar scan of
 * the small columns, then one read by id fetches the winners' text; when the caller's counts
 * say the windows hold few posts beyond those kept, the scan carries the text itself
 * (textInScan).
 */

import type { Connection, Table } from "@lancedb/lancedb";
import { connect } from "@lancedb/lancedb";
import type { RecordBatch } from "apache-arrow";
import type { RollupCell, RollupPost } from "../../topics/rollup.js";
import {
  assertBucketsAligned,
  assertDayAligned,
  bucketsFromCells,
  rollupAll,
  rollupDelta,
  statsFromCells,
} from "../../topics/rollup.js";
import type {
  ScannedPost,
  TimeWindow,
  TopicAssignment,
  TopicPost,
  TopicWindowStats,
  TopPostsAsk,
  TrendInputs,
  TrendStore,
} from "../../topics/trend-store.js";
import { bucketCount, byEngagement, TOPIC_POST_CONTENT_CHARS } from "../../topics/trend-store.js";
import { checkAborted, raceAbort } from "../abort.js";
import { guardEngine } from "../engine-call.js";
import { DEFAULT_SETTLE_MS, RollupGate } from "../rollup-gate.js";
import { IndexUnavailableError } from "../search-index.js";
import { activeTable } from "./active-table.js";
import { numberColumn, repeatedStrings } from "./arrow-columns.js";
import { idsWhere, sqlNumber, sqlString } from "./filter.js";
import { DEFAULT_FRESHNESS_SECONDS } from "./lancedb-index.js";
import { restoreIdIndex } from "./maintenance.js";
import { LanceDbRollups } from "./rollups.js";
import { rowsTable } from "./rows.js";
import { TOPIC_ASSIGNMENT_SCHEMA } from "./schema.js";
import { WriterLock } from "./writer-lock.js";

/** Options of {@link LanceDbTrendStore}. */
export interface LanceDbTrendStoreOptions {
  /** Directory of the LanceDB database (`LanceDbIndex.dirFor(dataDir)`). */
  dir: string;
  freshnessSeconds?: number;
  /** How long rollups must stay short of the posts, unmoved, before a read backfills them. */
  settleMs?: number;
}

function windowWhere(w: TimeWindow): string {
  return `created >= ${sqlNumber(Math.ceil(w.from))} AND created <= ${sqlNumber(Math.floor(w.to))}`;
}

/** Reads column `name` of a batch as a per-row accessor. */
function column(batch: RecordBatch, name: string): (i: number) => unknown {
  const vector = batch.getChild(name);
  if (!vector) throw new IndexUnavailableError(`LanceDB posts table has no column ${name}`);
  return (i) => vector.get(i);
}

/** The LanceDB TrendStore; see the module comment. */
export class LanceDbTrendStore implements TrendStore {
  readonly backend = "lancedb";
  private db: Connection | undefined;
  private table: Table | undefined;
  /** A re-tag wrote and its id index was not rebuilt yet (setTopics). */
  private idIndexStale = false;
  /** Re-tagging is a write: it takes the directory's writer lock, as ingest does. */
  private readonly lock: WriterLock;
  private readonly rollups = new LanceDbRollups(() => {
    if (!this.db) throw new Error("LanceDbTrendStore: call open() first");
    return this.db;
  });
  private readonly gate: RollupGate;

  constructor(private readonly opts: LanceDbTrendStoreOptions) {
    this.lock = new WriterLock(opts.dir);
    this.gate = new RollupGate({
      total: (signal) => this.rollups.total(signal),
      posts: async (signal) => {
        const table = await this.tableOrUndefined();
        return table ? guard(() => table.countRows(), signal) : 0;
      },
      rebuild: (signal) => this.rebuildRollups(signal),
      // Another process's commits reach this reader after the freshness interval: wait past it.
      settleMs:
        opts.settleMs ?? Math.max(DEFAULT_SETTLE_MS, 2_000 * (opts.freshnessSeconds ?? DEFAULT_FRESHNESS_SECONDS)),
    });
  }

  async rollupsFresh(signal?: AbortSignal): Promise<RollupCell | undefined> {
    return this.gate.fresh(signal);
  }

  async recordUpsert(
    previous: readonly RollupPost[],
    written: readonly RollupPost[],
    signal?: AbortSignal,
  ): Promise<void> {
    this.gate.invalidate();
    await this.rollups.apply(rollupDelta(previous, written), signal);
  }

  async rebuildRollups(signal?: AbortSignal): Promise<void> {
    const posts: RollupPost[] = [];
    const cols = ["id", "topic_id", "created", "upvotes", "comments", "sentiment_score", "subforum"];
    await this.scan(undefined, cols, signal, (batch) => {
      const [id, topic, created, up, com, sent, sub] = cols.map((c) => column(batch, c));
      for (let i = 0; i < batch.numRows; i++) {
        posts.push({
          id: String(id!(i)),
          topicId: String(topic!(i)),
          created: Number(created!(i)),
          upvotes: Number(up!(i)),
          comments: Number(com!(i)),
          sentimentScore: Number(sent!(i)),
          subforum: String(sub!(i)),
        });
      }
    });
    this.gate.invalidate();
    await this.rollups.replace(rollupAll(posts), signal);
  }

  async open(): Promise<void> {
    this.db = await guard(() =>
      connect(this.opts.dir, { readConsistencyInterval: this.opts.freshnessSeconds ?? DEFAULT_FRESHNESS_SECONDS }),
    );
  }

  async latestCreated(signal?: AbortSignal): Promise<number | undefined> {
    const total = await this.gate.ready(signal);
    return total && total.count > 0 ? total.maxCreated : undefined;
  }

  async aggregateByTopic(window: TimeWindow, signal?: AbortSignal): Promise<TopicWindowStats[]> {
    assertDayAligned(window);
    await this.gate.ready(signal);
    return statsFromCells(await this.rollups.read(window.from, window.to, true, signal));
  }

  async countsByTopicAndBucket(
    range: TimeWindow,
    bucketMs: number,
    signal?: AbortSignal,
  ): Promise<Map<string, number[]>> {
    if (bucketCount(range, bucketMs) === 0) return new Map();
    assertBucketsAligned(range, bucketMs);
    await this.gate.ready(signal);
    return bucketsFromCells(await this.rollups.read(range.from, range.to, false, signal), range, bucketMs);
  }

  async trendInputs(window: TimeWindow, buckets: number, signal?: AbortSignal): Promise<TrendInputs> {
    assertDayAligned(window);
    await this.gate.ready(signal);
    return this.rollups.trendInputs(window, buckets, signal);
  }

  async topPosts(
    topicIds: readonly string[],
    window: TimeWindow,
    n: number,
    signal?: AbortSignal,
  ): Promise<Map<string, TopicPost[]>> {
    return (await this.topPostsFor([{ topicIds, window }], n, signal))[0]!;
  }

  async topPostsFor(
    asks: readonly TopPostsAsk[],
    n: number,
    signal?: AbortSignal,
  ): Promise<Map<string, TopicPost[]>[]> {
    const out = asks.map((a) => new Map<string, TopicPost[]>(a.topicIds.map((id) => [id, []])));
    const live = asks.map((a, k) => ({ ...a, k, topics: new Set(a.topicIds) })).filter((a) => a.topicIds.length > 0);
    if (n < 1 || live.length === 0) return out;
    // One pass over the asked windows ranks every asked topic on the small columns; titles and
    // bodies are then read for the winners of all asks at once.
    // One range over the asks' windows (ListTrends' are adjacent), so the btree on `created`
    // narrows the scan; rows are sorted into asks below.
    const hull = { from: Math.min(...live.map((a) => a.window.from)), to: Math.max(...live.map((a) => a.window.to)) };
    const topics = [...new Set(live.flatMap((a) => a.topicIds))];
    const where = `${windowWhere(hull)} AND topic_id IN (${topics.map(sqlString).join(", ")})`;
    const withText = textInScan(live, n);
    // With the text in the scan, a kept row's text is decoded only after ranking (`scanned`).
    const scanned = new Map<TopicPost, () => Record<string, unknown>>();
    await this.scan(
      where,
      ["topic_id", "id", "upvotes", "comments", "created", ...(withText ? TEXT_COLUMNS : [])],
      signal,
      (batch) => {
        const topic = repeatedStrings(batch, "topic_id");
        const id = column(batch, "id");
        const [up, com, created] = ["upvotes", "comments", "created"].map((c) => numberColumn(batch, c)) as [
          ArrayLike<number>,
          ArrayLike<number>,
          ArrayLike<number>,
        ];
        const text = withText ? TEXT_COLUMNS.map((c) => [c, column(batch, c)] as const) : undefined;
        for (let i = 0; i < batch.numRows; i++) {
          const t = topic(i);
          const c = created[i]!;
          for (const a of live) {
            if (c < a.window.from || c > a.window.to || !a.topics.has(t)) continue;
            const post: TopicPost = {
              id: String(id(i)),
              title: "",
              content: "",
              subforum: "",
              upvotes: up[i]!,
              comments: com[i]!,
              created: c,
            };
            out[a.k]!.get(t)!.push(post);
            if (text) scanned.set(post, () => Object.fromEntries(text.map(([name, get]) => [name, get(i)])));
          }
        }
      },
    );
    for (const m of out) for (const [topicId, ranked] of m) m.set(topicId, ranked.sort(byEngagement).slice(0, n));
    const winners = out.flatMap((m) => [...m.values()].flat());
    if (winners.length === 0) return out;
    let textOf = (p: TopicPost): Record<string, unknown> | undefined => scanned.get(p)?.();
    if (!withText) {
      const table = this.table!;
      const ids = [...new Set(winners.map((p) => p.id))];
      const rows = await guard(
        () =>
          raceAbort(
            table
              .query()
              .where(idsWhere(ids))
              .select(["id", ...TEXT_COLUMNS])
              .limit(ids.length)
              .toArray(),
            signal,
          ),
        signal,
      );
      const byId = new Map(rows.map((r: Record<string, unknown>) => [String(r.id), r]));
      textOf = (p) => byId.get(p.id);
    }
    for (const p of winners) {
      const r = textOf(p) ?? {};
      p.title = String(r.title ?? "");
      p.content = String(r.content ?? "").slice(0, TOPIC_POST_CONTENT_CHARS);
      p.subforum = String(r.subforum ?? "");
    }
    return out;
  }

  async *scanVectors(batchSize: number, signal?: AbortSignal): AsyncIterable<ScannedPost[]> {
    const table = await this.tableOrUndefined();
    if (!table) return;
    let pending: ScannedPost[] = [];
    const stream = table.query().select(["id", "vector", "title", "content", "topic_id"]);
    for await (const batch of stream) {
      checkAborted(signal);
      const [id, vector, title, content, topic] = ["id", "vector", "title", "content", "topic_id"].map((c) =>
        column(batch, c),
      );
      for (let i = 0; i < batch.numRows; i++) {
        const v = vector!(i) as { toArray(): Float32Array };
        pending.push({
          id: String(id!(i)),
          vector: Float32Array.from(v.toArray()),
          title: String(title!(i)),
          content: String(content!(i)),
          topicId: String(topic!(i)),
        });
        if (pending.length >= batchSize) {
          yield pending;
          pending = [];
        }
      }
    }
    if (pending.length > 0) yield pending;
  }

  async setTopics(assignments: readonly TopicAssignment[], signal?: AbortSignal): Promise<number> {
    const table = await this.tableOrUndefined();
    if (!table || assignments.length === 0) return 0;
    checkAborted(signal);
    this.lock.acquire();
    // Only (id, topic_id): LanceDB then writes the topic column into the fragments that already
    // hold the rows, so the other columns' indexes stay valid and searches keep using them while
    // a rebuild runs (whole-row updates took rows out of every index; decision 0009). The join
    // column is written again too, which leaves the id index behind, so it is rebuilt before
    // returning. One row per id (the last assignment wins): mergeInsert refuses a batch that
    // matches a stored row twice.
    const latest = new Map(assignments.map((a) => [a.id, a.topicId]));
    const rows = rowsTable(
      [...latest].map(([id, topicId]) => ({ id, topic_id: topicId })),
      TOPIC_ASSIGNMENT_SCHEMA,
    );
    this.idIndexStale = true;
    const res = await guard(() => table.mergeInsert("id").whenMatchedUpdateAll().execute(rows), signal);
    await guard(() => restoreIdIndex(table));
    this.idIndexStale = false;
    return res.numUpdatedRows;
  }

  /** Closes the connection, first rebuilding the id index if a re-tag was cut short before it did. */
  async close(): Promise<void> {
    const table = this.table;
    const db = this.db;
    this.table = undefined;
    try {
      await this.rollups.close();
      // setTopics rebuilds the id index after each write; one cut short between the two leaves
      // it behind, and look-ups by id (an ingest's upsert) would scan the column until the next
      // ingest's upkeep folded it back.
      if (table && this.idIndexStale) await restoreIdIndex(table);
    } finally {
      this.lock.release();
      table?.close();
      this.db = undefined;
      db?.close();
    }
  }

  /** The posts table, opened on first need; undefined while nobody has created it. */
  private async tableOrUndefined(): Promise<Table | undefined> {
    if (this.table) return this.table;
    if (!this.db) throw new Error("LanceDbTrendStore: call open() first");
    const db = this.db;
    const name = activeTable(this.opts.dir);
    if (!(await guard(() => db.tableNames())).includes(name)) return undefined;
    this.table = await guard(() => db.openTable(name));
    return this.table;
  }

  /** Streams a filtered projection through `fold`, honouring the abort signal between batches. */
  private async scan(
    where: string | undefined,
    columns: string[],
    signal: AbortSignal | undefined,
    fold: (batch: RecordBatch) => void,
  ): Promise<void> {
    checkAborted(signal);
    const table = await this.tableOrUndefined();
    if (!table) return;
    let q = table.query().select(columns);
    if (where) q = q.where(where);
    await guard(async () => {
      for await (const batch of q) {
        checkAborted(signal);
        fold(batch);
      }
    }, signal);
  }
}

/** The columns a post's text is read from. */
const TEXT_COLUMNS = ["title", "content", "subforum"];

/**
 * Whether topPostsFor reads the text in its ranking scan rather than afterwards by id: when the
 * asks' windows hold few posts beyond the ones kept. A read of the winners by id costs about as
 * much as the ranking scan, while text in the scan grows with every post of the windows; the
 * ratio is where the two met on the benchmark corpora (decision 0009).
 */
const TEXT_IN_SCAN_RATIO = 6;

function textInScan(asks: readonly TopPostsAsk[], n: number): boolean {
  let posts = 0;
  let kept = 0;
  for (const a of asks) {
    for (const id of a.topicIds) {
      const count = a.counts?.get(id);
      if (count === undefined) return false;
      posts += count;
      kept += Math.min(count, n);
    }
  }
  return posts <= TEXT_IN_SCAN_RATIO * kept;
}

/** Engine failures become IndexUnavailableError; aborts and our own errors pass. */
function guard<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return guardEngine("LanceDB", fn, signal);
}
