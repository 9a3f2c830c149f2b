/**
 * TrendStore over the Weaviate posts collection (the same collection and properties as
 * WeaviateIndex). Aggregates come only from the per-(topic, day) rollup collection
 * (src/index/weaviate/rollups.ts), gated by src/index/rollup-gate.ts: a filtered groupBy over
 * the posts reads every object of the window, where the cells of a window are O(topics x days)
 * small objects. ListTrends' window and baselines come from a snapshot of the cells held
 * between writes. Sample posts are ranked on the small properties: from one unsorted fetch
 * when a topic has few posts in the window, else from two sorted fetches (by upvotes and by
 * comments) whose union provably holds the top n by engagement (widened when it does not);
 * titles and bodies are then read for the winners only, in one fetch by id.
 */

import type { Collection, FilterValue, WeaviateClient } from "weaviate-client";
import { Filters } from "weaviate-client";
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
import { bucketCount, byEngagement, engagement, TOPIC_POST_CONTENT_CHARS } from "../../topics/trend-store.js";
import { checkAborted, raceAbort } from "../abort.js";
import { guardEngine } from "../engine-call.js";
import { RollupGate } from "../rollup-gate.js";
import { IndexUnavailableError } from "../search-index.js";
import { resolveCollection } from "./alias.js";
import type { WeaviateEndpoint } from "./connect.js";
import { connectWeaviate } from "./connect.js";
import { scanPages } from "./cursor.js";
import { rollupCollectionName, WeaviateRollups } from "./rollups.js";
import { postUuid, vectorOf } from "./schema.js";

/** Connection settings: the endpoint and collection the search adapter uses. */
export interface WeaviateTrendStoreOptions extends WeaviateEndpoint {
  collection: string;
  consistency: "ONE" | "QUORUM" | "ALL";
  /** Replication factor of the rollup collection when it is created (WEAVIATE_REPLICATION_FACTOR). Default 1. */
  replicationFactor?: number;
  /** Posts per topic and window below which one unsorted fetch ranks them. Default 1,000. */
  unsortedFetch?: number;
  /** How long rollups must stay short of the posts, unmoved, before a read backfills them. */
  settleMs?: number;
}

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
  private readonly gate: RollupGate;

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
    this.gate = new RollupGate({
      total: (signal) => this.rollups.total(signal),
      posts: async (signal) => {
        const posts = await this.posts(signal);
        return posts ? (await guard(() => raceAbort(posts.aggregate.overAll(), signal), signal)).totalCount : 0;
      },
      rebuild: (signal) => this.rebuildRollups(signal),
      ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
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
    this.gate.invalidate();
    await this.rollups.replace(rollupAll(found), signal);
  }

  async open(): Promise<void> {
    this.client = await guard(() => connectWeaviate(this.opts));
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
    const name = await guard(() => raceAbort(resolveCollection(client, this.opts.collection), signal), signal);
    if (!(await guard(() => raceAbort(client.collections.exists(name), signal), signal))) return undefined;
    this.collection = client.collections.use(name).withConsistency(this.opts.consistency) as Posts;
    return this.collection;
  }

  /** Posts of topic `topicId` created within the window. */
  private windowFilter(posts: Posts, w: TimeWindow, topicId: string): FilterValue {
    return Filters.and(
      posts.filter.byProperty("created").greaterOrEqual(new Date(Math.ceil(w.from))),
      posts.filter.byProperty("created").lessOrEqual(new Date(Math.floor(w.to))),
      posts.filter.byProperty("topicId").equal(topicId),
    );
  }
}

/** Client and server failures become IndexUnavailableError; aborts pass. */
function guard<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return guardEngine("Weaviate", fn, signal);
}
