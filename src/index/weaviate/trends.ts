/**
 * TrendStore over the Weaviate posts collection (the same collection and properties as
 * WeaviateIndex). Aggregates run in the engine: one `aggregate.groupBy` on `topicId` per window,
 * filtered on `created`, returning counts, sums of upvotes and comments, the mean sentiment
 * score and the top subforums (topOccurrences) per group; a baseline is one count-only groupBy
 * per previous window, all in parallel. Sample posts are ranked on the small properties: from one
 * unsorted fetch when a topic has few posts in the window, else from two sorted fetches (by
 * upvotes and by comments) whose union provably holds the top n by engagement (widened when it
 * does not); titles and bodies are then read for the winners only.
 *
 * A filtered groupBy reads every object in the window, which at 1M posts takes seconds; so
 * day-aligned windows (every ListTrends window) are answered from the per-(topic, day) rollup
 * collection (src/index/weaviate/rollups.ts) whenever its TOTAL cell counts exactly the posts the
 * collection holds, and the groupBy stays as the fallback (rollups missing or bypassed).
 * ListTrends' window and baselines (trendInputs) come from a snapshot of the cells held between
 * writes (WeaviateRollups.trendInputs); its keyword posts for the window and the previous one
 * (topPostsFor) are ranked per topic in parallel and their text read in one fetch by id.
 */

import type { Collection, FilterValue, WeaviateClient } from "weaviate-client";
import { Filters } from "weaviate-client";
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
  engagement,
  TOP_SUBFORUMS,
  TOPIC_POST_CONTENT_CHARS,
  trendInputsByParts,
} from "../../topics/trend-store.js";
import { checkAborted, raceAbort } from "../abort.js";
import { guardEngine } from "../engine-call.js";
import { IndexUnavailableError } from "../search-index.js";
import type { WeaviateEndpoint } from "./connect.js";
import { connectWeaviate } from "./connect.js";
import { scanPages } from "./cursor.js";
import { groups, rollupCollectionName, WeaviateRollups } from "./rollups.js";
import { postUuid, vectorOf } from "./schema.js";

/** Connection settings: the endpoint and collection the search adapter uses. */
export interface WeaviateTrendStoreOptions extends WeaviateEndpoint {
  collection: string;
  consistency: "ONE" | "QUORUM" | "ALL";
  /** Replication factor of the rollup collection when it is created (WEAVIATE_REPLICATION_FACTOR). Default 1. */
  replicationFactor?: number;
  /** Posts per topic and window below which one unsorted fetch ranks them. Default 1,000. */
  unsortedFetch?: number;
}

/** Most groups one groupBy returns; more topics than this would be cut. */
const MAX_GROUPS = 10_000;
/** Subforum values asked per group; sorted and cut to TOP_SUBFORUMS here so ties break by name. */
const SUBFORUM_CANDIDATES = 20;
/** A topic with fewer posts than this in a window is ranked from one unsorted fetch. */
const UNSORTED_FETCH = 1_000;
/** Weaviate's default QUERY_MAXIMUM_RESULTS: the widest sorted fetch. */
const MAX_FETCH = 10_000;
/** Posts per page of a rollup rebuild's scan: seven small properties each, so a large page is cheap. */
const ROLLUP_SCAN_PAGE = 5_000;
/** Parallel single-object updates while re-tagging. */
const UPDATE_CONCURRENCY = 16;

type Posts = Collection<undefined, string, undefined>;
type Props = Record<string, unknown>;

function toMs(v: unknown): number {
  return v instanceof Date ? v.getTime() : Date.parse(String(v));
}

function toPost(p: Props): TopicPost {
  return {
    id: String(p.postId ?? ""),
    title: String(p.title ?? ""),
    content: String(p.content ?? "").slice(0, TOPIC_POST_CONTENT_CHARS),
    subforum: String(p.subforum ?? ""),
    upvotes: Number(p.upvotes ?? 0),
    comments: Number(p.comments ?? 0),
    created: toMs(p.created),
  };
}

/** The Weaviate TrendStore; see the module comment. */
export class WeaviateTrendStore implements TrendStore {
  readonly backend = "weaviate";
  private client: WeaviateClient | undefined;
  /** Set once the collection is seen to exist; it is then not checked again. */
  private collection: Posts | undefined;
  private readonly rollups: WeaviateRollups;
  private readonly freshness = new RollupFreshness(
    (signal) => this.rollups.total(signal),
    async (signal) => {
      const posts = await this.posts(signal);
      return posts ? (await guard(() => raceAbort(posts.aggregate.overAll(), signal), signal)).totalCount : 0;
    },
  );

  constructor(private readonly opts: WeaviateTrendStoreOptions) {
    this.rollups = new WeaviateRollups(
      () => {
        if (!this.client) throw new Error("WeaviateTrendStore: call open() first");
        return this.client;
      },
      rollupCollectionName(opts.collection),
      opts.consistency,
      opts.replicationFactor ?? 1,
    );
  }

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
    const found: RollupPost[] = [];
    const posts = await this.posts(signal);
    if (posts) {
      const pages = scanPages(
        posts,
        {
          returnProperties: ["postId", "topicId", "created", "upvotes", "comments", "sentimentScore", "subforum"],
          pageSize: ROLLUP_SCAN_PAGE,
        },
        signal,
      );
      await guard(async () => {
        for await (const page of pages) {
          for (const o of page) {
            const p = o.properties as Props;
            found.push({
              id: String(p.postId ?? ""),
              topicId: String(p.topicId ?? ""),
              created: toMs(p.created),
              upvotes: Number(p.upvotes ?? 0),
              comments: Number(p.comments ?? 0),
              sentimentScore: Number(p.sentimentScore ?? 0),
              subforum: String(p.subforum ?? ""),
            });
          }
        }
      }, signal);
    }
    this.freshness.invalidate();
    await this.rollups.replace(rollupAll(found), signal);
  }

  async open(): Promise<void> {
    this.client = await guard(() => connectWeaviate(this.opts));
  }

  async latestCreated(signal?: AbortSignal): Promise<number | undefined> {
    const total = await this.rollupsFresh(signal);
    if (total) return total.count > 0 ? total.maxCreated : undefined;
    const posts = await this.posts(signal);
    if (!posts) return undefined;
    const res = await guard(
      () =>
        raceAbort(
          posts.aggregate.overAll({ returnMetrics: posts.metrics.aggregate("created").date(["maximum"]) }),
          signal,
        ),
      signal,
    );
    const max = (res.properties as Record<string, { maximum?: string }>).created?.maximum;
    return res.totalCount === 0 || !max ? undefined : Date.parse(max);
  }

  async aggregateByTopic(window: TimeWindow, signal?: AbortSignal): Promise<TopicWindowStats[]> {
    if (dayAligned(window) && (await this.rollupsFresh(signal)))
      return statsFromCells(await this.rollups.read(window.from, window.to, true, signal));
    const posts = await this.posts(signal);
    if (!posts) return [];
    const m = posts.metrics;
    const found = await guard(
      () =>
        raceAbort(
          groups(() =>
            posts.aggregate.groupBy.overAll({
              groupBy: { property: "topicId", limit: MAX_GROUPS },
              filters: this.windowFilter(posts, window),
              returnMetrics: [
                m.aggregate("upvotes").integer(["sum"]),
                m.aggregate("comments").integer(["sum"]),
                m.aggregate("sentimentScore").number(["mean"]),
                m.aggregate("subforum").text(["topOccurrencesValue", "topOccurrencesOccurs"], SUBFORUM_CANDIDATES),
              ],
            }),
          ),
          signal,
        ),
      signal,
    );
    return found
      .filter((g) => g.totalCount > 0 && String(g.groupedBy.value) !== "")
      .map((g) => {
        const p = g.properties as Record<
          string,
          { sum?: number; mean?: number; topOccurrences?: { value?: string; occurs?: number }[] }
        >;
        const subforums = (p.subforum?.topOccurrences ?? []).map((o) => ({
          subforum: String(o.value ?? ""),
          count: Number(o.occurs ?? 0),
        }));
        return {
          topicId: String(g.groupedBy.value),
          count: g.totalCount,
          upvotes: Number(p.upvotes?.sum ?? 0),
          comments: Number(p.comments?.sum ?? 0),
          meanSentiment: Number(p.sentimentScore?.mean ?? 0),
          topSubforums: subforums.sort(bySubforumCount).slice(0, TOP_SUBFORUMS),
        };
      });
  }

  async countsByTopicAndBucket(
    range: TimeWindow,
    bucketMs: number,
    signal?: AbortSignal,
  ): Promise<Map<string, number[]>> {
    const buckets = bucketCount(range, bucketMs);
    const out = new Map<string, number[]>();
    const posts = await this.posts(signal);
    if (!posts || buckets === 0) return out;
    if (bucketsAligned(range, bucketMs) && (await this.rollupsFresh(signal)))
      return bucketsFromCells(await this.rollups.read(range.from, range.to, false, signal), range, bucketMs);
    // One race for the whole fan-out, so a call adds one abort listener, not one per bucket.
    const perBucket = await guard(
      () =>
        raceAbort(
          Promise.all(
            Array.from({ length: buckets }, (_, b) => {
              const w = {
                from: range.from + b * bucketMs,
                to: Math.min(range.to, range.from + (b + 1) * bucketMs - 1),
              };
              return groups(() =>
                posts.aggregate.groupBy.overAll({
                  groupBy: { property: "topicId", limit: MAX_GROUPS },
                  filters: this.windowFilter(posts, w),
                }),
              );
            }),
          ),
          signal,
        ),
      signal,
    );
    perBucket.forEach((found, b) => {
      for (const g of found) {
        const id = String(g.groupedBy.value);
        if (id === "" || g.totalCount === 0) continue;
        let counts = out.get(id);
        if (!counts) out.set(id, (counts = new Array<number>(buckets).fill(0)));
        counts[b] = g.totalCount;
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
    const posts = await this.posts(signal);
    if (!posts || n < 1) return asks.map((a) => new Map(a.topicIds.map((id) => [id, []])));
    const run = async () => {
      // Every (ask, topic) is ranked in parallel; then one fetch by id reads the winners' text.
      const ranked = await Promise.all(
        asks.map((a) => Promise.all(a.topicIds.map((id) => this.rankTopic(posts, id, a.window, n, a.counts?.get(id))))),
      );
      await this.fillText(posts, ranked.flat(2));
      return asks.map((a, k) => new Map(a.topicIds.map((id, i) => [id, ranked[k]![i]!])));
    };
    // One race for the whole fan-out, so a call adds one abort listener, not one per topic.
    return guard(() => raceAbort(run(), signal), signal);
  }

  /**
   * The top `n` of one topic, ranked on the small properties only (text is filled in later).
   * `known` is the topic's post count in the window when the caller has it.
   */
  private async rankTopic(
    posts: Posts,
    topicId: string,
    window: TimeWindow,
    n: number,
    known?: number,
  ): Promise<TopicPost[]> {
    const filters = this.windowFilter(posts, window, topicId);
    const returnProperties = ["postId", "upvotes", "comments", "created"];
    const fetch = async (limit: number, property?: "upvotes" | "comments"): Promise<TopicPost[]> => {
      const sort = property ? { sort: posts.sort.byProperty(property as never, false) } : {};
      const res = await posts.query.fetchObjects({ filters, limit, returnProperties, ...sort });
      return res.objects.map((o) => toPost(o.properties as Props));
    };
    // Most topics have few posts in a window: one unsorted fetch gets them all. A topic known to
    // hold more skips it (ListTrends' busiest-year topics: it was a wasted 1,000-object fetch).
    const unsorted = this.opts.unsortedFetch ?? UNSORTED_FETCH;
    if (known === undefined || known < unsorted) {
      const all = await fetch(unsorted);
      if (all.length < unsorted) return all.sort(byEngagement).slice(0, n);
    }
    // Otherwise take the heads of two sorted lists. Any post missing from both has upvotes <=
    // the last upvotes listed and comments <= the last comments listed, so its engagement is at
    // most their blend; if the n-th candidate beats that bound, the candidates hold the true
    // top n. Otherwise widen.
    for (let limit = Math.max(4 * n, 50); ; limit = Math.min(MAX_FETCH, limit * 4)) {
      const [byUp, byCom] = await Promise.all([fetch(limit, "upvotes"), fetch(limit, "comments")]);
      const merged = new Map<string, TopicPost>();
      for (const p of [...byUp, ...byCom]) merged.set(p.id, p);
      const ranked = [...merged.values()].sort(byEngagement).slice(0, n);
      const complete = byUp.length < limit || byCom.length < limit;
      const bound = engagement({
        upvotes: byUp[byUp.length - 1]?.upvotes ?? 0,
        comments: byCom[byCom.length - 1]?.comments ?? 0,
      });
      const nth = ranked[n - 1];
      if (complete || (nth !== undefined && engagement(nth) > bound) || limit >= MAX_FETCH) return ranked;
    }
  }

  /** Reads title, body and subforum of ranked posts in one fetch by id. */
  private async fillText(posts: Posts, ranked: TopicPost[]): Promise<void> {
    const ids = [...new Set(ranked.map((p) => p.id))];
    const chunks: string[][] = [];
    for (let i = 0; i < ids.length; i += MAX_FETCH) chunks.push(ids.slice(i, i + MAX_FETCH));
    const byId = new Map<string, Props>();
    await Promise.all(
      chunks.map(async (slice) => {
        const res = await posts.query.fetchObjects({
          filters: posts.filter.byId().containsAny(slice.map(postUuid)),
          limit: slice.length,
          returnProperties: ["postId", "title", "content", "subforum"],
        });
        for (const o of res.objects) byId.set(String((o.properties as Props).postId), o.properties as Props);
      }),
    );
    for (const p of ranked) {
      const text = byId.get(p.id);
      if (!text) continue;
      p.title = String(text.title ?? "");
      p.content = String(text.content ?? "").slice(0, TOPIC_POST_CONTENT_CHARS);
      p.subforum = String(text.subforum ?? "");
    }
  }

  async *scanVectors(batchSize: number, signal?: AbortSignal): AsyncIterable<ScannedPost[]> {
    const posts = await this.posts(signal);
    if (!posts) return;
    let pending: ScannedPost[] = [];
    const pages = scanPages(
      posts,
      { includeVector: true, returnProperties: ["postId", "title", "content", "topicId"] },
      signal,
    )[Symbol.asyncIterator]();
    for (;;) {
      const next = await guard(() => pages.next(), signal);
      if (next.done) break;
      for (const o of next.value) {
        const p = o.properties as Props;
        pending.push({
          id: String(p.postId ?? ""),
          vector: vectorOf(o),
          title: String(p.title ?? ""),
          content: String(p.content ?? ""),
          topicId: String(p.topicId ?? ""),
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
    const posts = await this.posts(signal);
    if (!posts) return 0;
    // Weaviate has no partial batch update; a PATCH per object keeps the vector and other fields.
    let written = 0;
    for (let i = 0; i < assignments.length; i += UPDATE_CONCURRENCY) {
      checkAborted(signal);
      const slice = assignments.slice(i, i + UPDATE_CONCURRENCY);
      const results = await Promise.allSettled(
        slice.map((a) => posts.data.update({ id: postUuid(a.id), properties: { topicId: a.topicId } })),
      );
      for (const r of results) {
        if (r.status === "fulfilled") written++;
        else if (!/not found|404/i.test(String((r.reason as Error)?.message)))
          throw new IndexUnavailableError(`Weaviate failed: ${(r.reason as Error).message}`, { cause: r.reason });
      }
    }
    return written;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.collection = undefined;
    await this.rollups.close();
    await client?.close();
  }

  /** The collection, or undefined while it does not exist (an empty index). */
  private async posts(signal?: AbortSignal): Promise<Posts | undefined> {
    checkAborted(signal);
    const client = this.client;
    if (!client) throw new Error("WeaviateTrendStore: call open() first");
    if (this.collection) return this.collection;
    if (!(await guard(() => raceAbort(client.collections.exists(this.opts.collection), signal), signal)))
      return undefined;
    this.collection = client.collections.use(this.opts.collection).withConsistency(this.opts.consistency) as Posts;
    return this.collection;
  }

  /**
   * Posts of the window with a topic: of `topicId` when given, else of any. The `!= ""` test is
   * left out when a topic is named: it is implied, and Weaviate evaluates notEqual as the
   * complement of "" over every object, which at 1M posts made each topic's top-posts fetch slow.
   */
  private windowFilter(posts: Posts, w: TimeWindow, topicId?: string): FilterValue {
    return Filters.and(
      posts.filter.byProperty("created").greaterOrEqual(new Date(Math.ceil(w.from))),
      posts.filter.byProperty("created").lessOrEqual(new Date(Math.floor(w.to))),
      topicId === undefined
        ? posts.filter.byProperty("topicId").notEqual("")
        : posts.filter.byProperty("topicId").equal(topicId),
    );
  }
}

/** Client and server failures become IndexUnavailableError; aborts pass. */
function guard<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return guardEngine("Weaviate", fn, signal);
}
