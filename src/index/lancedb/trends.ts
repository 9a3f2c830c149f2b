/**
 * TrendStore over the embedded LanceDB posts table (the same `<dataDir>/lancedb` directory and
 * `posts` table as LanceDbIndex). LanceDB's query API has filters and projections but no
 * GROUP BY, so aggregates are a filtered scan of only the needed columns (topic_id, created and
 * the summed fields), streamed batch by batch and folded here: memory stays O(topics), and the
 * scan is columnar, so a one-year window reads a few int and string columns, never titles or
 * vectors. Day-aligned windows (every ListTrends window) are answered from the per-(topic, day)
 * rollup table instead (src/index/lancedb/rollups.ts) whenever its TOTAL cell counts exactly the
 * posts the table holds; the scan stays as the fallback for rollups that are missing or were
 * bypassed, and as the oracle path of the contract suite. ListTrends' window and baselines
 * (trendInputs) are folded from a snapshot of the rollup table held until its version moves
 * (LanceDbRollups.trendInputs); its keyword posts for the window and the previous one
 * (topPostsFor) are ranked in one scan of the small columns, then one read by id fetches the
 * winners' text; when the caller's counts say the windows hold few posts beyond those kept, the
 * scan carries the text itself (textInScan). Timed by test/topics/measure-trends.ts and
 * test/bench/insights.ts.
 */

import type { Connection, Table } from "@lancedb/lancedb";
import { connect } from "@lancedb/lancedb";
import type { RecordBatch } from "apache-arrow";
import type { RollupCell, RollupPost } from "../../topics/rollup.js";
import {
  bucketsAligned,
  bucketsFromCells,
  dayAligned,
  rollupAll,
  rollupDelta,
  statsFromCells,
} from "../../topics/rollup.js";
import { RollupFreshness } from "../../topics/rollup-freshness.js";
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
import {
  bucketCount,
  byEngagement,
  bySubforumCount,
  TOP_SUBFORUMS,
  TOPIC_POST_CONTENT_CHARS,
  trendInputsByParts,
} from "../../topics/trend-store.js";
import { checkAborted, raceAbort } from "../abort.js";
import { guardEngine } from "../engine-call.js";
import { IndexUnavailableError } from "../search-index.js";
import { numberColumn, repeatedStrings } from "./arrow-columns.js";
import { idsWhere, sqlNumber, sqlString } from "./filter.js";
import { DEFAULT_FRESHNESS_SECONDS } from "./lancedb-index.js";
import { restoreIdIndex } from "./maintenance.js";
import { LanceDbRollups } from "./rollups.js";
import { rowsTable } from "./rows.js";
import { POSTS_TABLE, TOPIC_ASSIGNMENT_SCHEMA } from "./schema.js";
import { WriterLock } from "./writer-lock.js";

/** Options of {@link LanceDbTrendStore}. */
export interface LanceDbTrendStoreOptions {
  /** Directory of the LanceDB database (`LanceDbIndex.dirFor(dataDir)`). */
  dir: string;
  freshnessSeconds?: number;
}

interface Acc {
  count: number;
  upvotes: number;
  comments: number;
  sentiment: number;
  subforums: Map<string, number>;
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
  private readonly freshness = new RollupFreshness(
    (signal) => this.rollups.total(signal),
    async (signal) => {
      const table = await this.tableOrUndefined();
      return table ? guard(() => table.countRows(), signal) : 0;
    },
  );

  constructor(private readonly opts: LanceDbTrendStoreOptions) {
    this.lock = new WriterLock(opts.dir);
  }

  /** The TOTAL rollup cell when rollups cover every post, else undefined (then posts are scanned). */
  async rollupsFresh(signal?: AbortSignal): Promise<RollupCell | undefined> {
    return this.freshness.check(signal);
  }

  async recordUpsert(
    previous: readonly RollupPost[],
    written: readonly RollupPost[],
    signal?: AbortSignal,
  ): Promise<void> {
    this.freshness.invalidate();
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
    this.freshness.invalidate();
    await this.rollups.replace(rollupAll(posts), signal);
  }

  async open(): Promise<void> {
    this.db = await guard(() =>
      connect(this.opts.dir, { readConsistencyInterval: this.opts.freshnessSeconds ?? DEFAULT_FRESHNESS_SECONDS }),
    );
  }

  async latestCreated(signal?: AbortSignal): Promise<number | undefined> {
    const total = await this.rollupsFresh(signal);
    if (total) return total.count > 0 ? total.maxCreated : undefined;
    let latest: number | undefined;
    await this.scan(undefined, ["created"], signal, (batch) => {
      const created = column(batch, "created");
      for (let i = 0; i < batch.numRows; i++) {
        const c = Number(created(i));
        if (latest === undefined || c > latest) latest = c;
      }
    });
    return latest;
  }

  async aggregateByTopic(window: TimeWindow, signal?: AbortSignal): Promise<TopicWindowStats[]> {
    if (dayAligned(window) && (await this.rollupsFresh(signal)))
      return statsFromCells(await this.rollups.read(window.from, window.to, true, signal));
    const acc = new Map<string, Acc>();
    const cols = ["topic_id", "upvotes", "comments", "sentiment_score", "subforum"];
    await this.scan(`${windowWhere(window)} AND topic_id <> ''`, cols, signal, (batch) => {
      const [topic, up, com, sent, sub] = cols.map((c) => column(batch, c));
      for (let i = 0; i < batch.numRows; i++) {
        const id = String(topic!(i));
        let a = acc.get(id);
        if (!a) acc.set(id, (a = { count: 0, upvotes: 0, comments: 0, sentiment: 0, subforums: new Map() }));
        a.count++;
        a.upvotes += Number(up!(i));
        a.comments += Number(com!(i));
        a.sentiment += Number(sent!(i));
        const s = String(sub!(i));
        a.subforums.set(s, (a.subforums.get(s) ?? 0) + 1);
      }
    });
    return [...acc].map(([topicId, a]) => ({
      topicId,
      count: a.count,
      upvotes: a.upvotes,
      comments: a.comments,
      meanSentiment: a.sentiment / a.count,
      topSubforums: [...a.subforums]
        .map(([subforum, count]) => ({ subforum, count }))
        .sort(bySubforumCount)
        .slice(0, TOP_SUBFORUMS),
    }));
  }

  async countsByTopicAndBucket(
    range: TimeWindow,
    bucketMs: number,
    signal?: AbortSignal,
  ): Promise<Map<string, number[]>> {
    const buckets = bucketCount(range, bucketMs);
    const out = new Map<string, number[]>();
    if (buckets === 0) return out;
    if (bucketsAligned(range, bucketMs) && (await this.rollupsFresh(signal)))
      return bucketsFromCells(await this.rollups.read(range.from, range.to, false, signal), range, bucketMs);
    await this.scan(`${windowWhere(range)} AND topic_id <> ''`, ["topic_id", "created"], signal, (batch) => {
      const topic = column(batch, "topic_id");
      const created = column(batch, "created");
      for (let i = 0; i < batch.numRows; i++) {
        const id = String(topic(i));
        let counts = out.get(id);
        if (!counts) out.set(id, (counts = new Array<number>(buckets).fill(0)));
        counts[Math.floor((Number(created(i)) - range.from) / bucketMs)]!++;
      }
    });
    return out;
  }

  async trendInputs(window: TimeWindow, buckets: number, signal?: AbortSignal): Promise<TrendInputs> {
    if (dayAligned(window) && (await this.rollupsFresh(signal)))
      return this.rollups.trendInputs(window, buckets, signal);
    return trendInputsByParts(this, window, buckets, signal);
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
    // hold the rows, so the vector, full-text and scalar indexes over the other columns stay valid
    // and searches keep using them while a rebuild runs. A per-topic update() rewrote whole rows
    // instead, which took them out of every index (the vector index dropped once every row had
    // moved) until close() rebuilt it: re-tagging 62,888 posts took 160 s, searches meanwhile
    // 3.5 s at the median (test/bench/retag.ts). LanceDB writes the join column again as well,
    // which leaves the id index behind; without it the next call's join would rewrite whole rows,
    // so it is rebuilt before returning (a btree over the id column: well under a second).
    // One row per id (the last assignment wins, as it did per update): mergeInsert refuses a
    // batch that matches a stored row twice.
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
    if (!(await guard(() => db.tableNames())).includes(POSTS_TABLE)) return undefined;
    this.table = await guard(() => db.openTable(POSTS_TABLE));
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
 * asks' windows hold few posts beyond the ones kept. Reading ~2,000 winners by id costs about as
 * much as the ranking scan itself (the `id IN` lookup), while carrying the text makes the scan
 * cost grow with every post of the windows. Measured on the benchmark corpora (ListTrends' ten
 * topics, a year and the year before, ~2,000 posts kept; median ms, text in the scan vs by id):
 * 1.1 posts per post kept 11-14 vs 25-29, 2.0-2.2 19-38 vs 38-46, 3.9-4.3 31-37 vs 38-51, 5.7
 * 30 vs 39-40, and at 6.9 (the Reddit year's long self-posts) 55-89 vs 55-61.
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
