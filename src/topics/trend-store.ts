/**
 * What topics and trends need from an index, kept apart from SearchIndex because it is a
 * different workload: aggregates over `topicId` and `created` read from per-(topic, day)
 * rollups, the most engaged posts per topic, a scan of every vector for a rebuild, and bulk
 * topic re-tagging. LanceDB (src/index/lancedb/trends.ts) and Weaviate
 * (src/index/weaviate/trends.ts) implement it over the same storage the search adapters use;
 * test/topics/trend-store-contract.ts holds both to the answers of an oracle that folds the
 * posts themselves (test/topics/trend-oracle.ts).
 */

import type { RollupCell, RollupWriter } from "./rollup.js";

/** An inclusive time window, epoch ms. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** Posts per subforum. */
export interface SubforumCount {
  subforum: string;
  count: number;
}

/** One topic's aggregates within a window. Posts without a topic ("") are never reported. */
export interface TopicWindowStats {
  topicId: string;
  count: number;
  upvotes: number;
  comments: number;
  /** Mean sentimentScore of the posts, -1..1. */
  meanSentiment: number;
  /** Subforums with the most posts, most first, ties by name; at most {@link TOP_SUBFORUMS}. */
  topSubforums: SubforumCount[];
}

/** How many subforums a store reports per topic. */
export const TOP_SUBFORUMS = 3;

/** A post as trends show and read it. */
export interface TopicPost {
  id: string;
  title: string;
  /** Body, cut to at most {@link TOPIC_POST_CONTENT_CHARS} characters. */
  content: string;
  subforum: string;
  upvotes: number;
  comments: number;
  created: number;
}

/** Longest body a TopicPost carries (enough for keywords, small on the wire). */
export const TOPIC_POST_CONTENT_CHARS = 2000;

/** A post as a topic rebuild reads it. */
export interface ScannedPost {
  id: string;
  vector: Float32Array;
  title: string;
  content: string;
  topicId: string;
}

/** A post's new topic. */
export interface TopicAssignment {
  id: string;
  topicId: string;
}

/**
 * Engagement of a post: upvotes + 2 * comments (a comment costs more effort than a vote).
 * Ranks sample posts; ties go to the newer post, then the smaller id.
 */
export function engagement(p: { upvotes: number; comments: number }): number {
  return p.upvotes + 2 * p.comments;
}

/** The sample-post order: engagement desc, created desc, id asc. */
export function byEngagement(a: TopicPost, b: TopicPost): number {
  return engagement(b) - engagement(a) || b.created - a.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The subforum order: count desc, name asc. */
export function bySubforumCount(a: SubforumCount, b: SubforumCount): number {
  return b.count - a.count || (a.subforum < b.subforum ? -1 : a.subforum > b.subforum ? 1 : 0);
}

/**
 * The trends side of an index. Every method takes the caller's abort signal. As a RollupWriter
 * it also keeps the per-(topic, day) rollups (src/topics/rollup.ts), which are the only source
 * of its aggregates: windows are whole UTC days (a RangeError otherwise), and rollups that do
 * not cover the posts are backfilled before they answer (src/index/rollup-gate.ts).
 */
export interface TrendStore extends RollupWriter {
  /** "lancedb" or "weaviate". */
  readonly backend: string;
  /** Opens the connection; the posts table/collection may not exist yet (then every answer is empty). */
  open(): Promise<void>;
  /** `created` of the newest post, or undefined for an empty index. */
  latestCreated(signal?: AbortSignal): Promise<number | undefined>;
  /** Aggregates per topic of the posts created within `window` (whole UTC days). Order unspecified. */
  aggregateByTopic(window: TimeWindow, signal?: AbortSignal): Promise<TopicWindowStats[]>;
  /**
   * Post counts per topic in consecutive buckets of `bucketMs` starting at `range.from`
   * (bucket i = [from + i*bucketMs, from + (i+1)*bucketMs - 1], cut at range.to); the range
   * and the buckets are whole UTC days. Each array has one entry per bucket; topics with no
   * posts in the range are absent.
   */
  countsByTopicAndBucket(range: TimeWindow, bucketMs: number, signal?: AbortSignal): Promise<Map<string, number[]>>;
  /**
   * The `n` most engaged posts of each topic in a window, in {@link byEngagement} order; one
   * call for all the topics a response shows, so a backend can answer them in one pass.
   * Every requested topic is a key of the result (with [] when it has no posts).
   */
  topPosts(
    topicIds: readonly string[],
    window: TimeWindow,
    n: number,
    signal?: AbortSignal,
  ): Promise<Map<string, TopicPost[]>>;
  /**
   * What ListTrends ranks on, in one call so a backend can answer it from one read of its
   * rollups: the window's aggregates, and per topic its post counts in the `buckets` windows of
   * the same length right before it (oldest first; see {@link baselineRange}), as
   * {@link countsByTopicAndBucket} gives them.
   */
  trendInputs(window: TimeWindow, buckets: number, signal?: AbortSignal): Promise<TrendInputs>;
  /**
   * {@link topPosts} for several (topics, window) asks at once (ListTrends asks for its window
   * and the previous one): one pass over the posts where the engine allows. One map per ask, in order.
   */
  topPostsFor(asks: readonly TopPostsAsk[], n: number, signal?: AbortSignal): Promise<Map<string, TopicPost[]>[]>;
  /** Every post with its vector, in batches of at most `batchSize` (for a rebuild). */
  scanVectors(batchSize: number, signal?: AbortSignal): AsyncIterable<ScannedPost[]>;
  /** Sets posts' topic ids; returns how many were written. Unknown ids are skipped. */
  setTopics(assignments: readonly TopicAssignment[], signal?: AbortSignal): Promise<number>;
  /** Recomputes every rollup cell from the posts (after a re-tag, or to adopt an index written without them). */
  rebuildRollups(signal?: AbortSignal): Promise<void>;
  /** The TOTAL rollup cell when rollups cover every post right now, else undefined (never backfills). */
  rollupsFresh(signal?: AbortSignal): Promise<RollupCell | undefined>;
  close(): Promise<void>;
}

/** A window's aggregates and its topics' baseline counts (see TrendStore.trendInputs). */
export interface TrendInputs {
  stats: TopicWindowStats[];
  baselines: Map<string, number[]>;
}

/** One ask of TrendStore.topPostsFor. */
export interface TopPostsAsk {
  topicIds: readonly string[];
  window: TimeWindow;
  /**
   * How many posts each topic has in the window, when the caller knows it (ListTrends does, from
   * its aggregates). A hint that picks how a store reads, never a limit: the answer is the same.
   */
  counts?: ReadonlyMap<string, number>;
}

/** The range of `buckets` windows as long as `window` right before it, and that length. */
export function baselineRange(window: TimeWindow, buckets: number): { range: TimeWindow; bucketMs: number } {
  const bucketMs = window.to - window.from + 1;
  return { range: { from: window.from - buckets * bucketMs, to: window.from - 1 }, bucketMs };
}

/** Number of buckets in a window of `window` that `bucketMs` makes (the last may be short). */
export function bucketCount(window: TimeWindow, bucketMs: number): number {
  if (window.to < window.from) return 0;
  return Math.ceil((window.to - window.from + 1) / bucketMs);
}
