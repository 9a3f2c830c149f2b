/**
 * The trend oracle: a TrendStore that folds the posts themselves, written as plainly as
 * possible (filter, group, sum), with no rollups. Production stores read aggregates only from
 * rollups; this is the post-level computation they are compared with. The contract suite
 * (trend-store-contract.ts) checks that LanceDB and Weaviate give exactly what this gives over
 * the same posts, including after re-ingest and re-tag; core tests use it for the edge cases.
 * Unlike the stores it also answers windows that are not whole days.
 */
import type { EnrichedPost } from "../../src/model/post.js";
import type {
  ScannedPost,
  TimeWindow,
  TopicAssignment,
  TopicPost,
  TopicWindowStats,
  TopPostsAsk,
  TrendInputs,
  TrendStore,
} from "../../src/topics/trend-store.js";
import {
  baselineRange,
  bucketCount,
  byEngagement,
  bySubforumCount,
  TOP_SUBFORUMS,
  TOPIC_POST_CONTENT_CHARS,
} from "../../src/topics/trend-store.js";

type StoredPost = EnrichedPost & { vector?: Float32Array };

const inWindow = (p: { created: number }, w: TimeWindow) => p.created >= w.from && p.created <= w.to;

/** The oracle over `posts` (mutated by setTopics). */
export class TrendOracle implements TrendStore {
  readonly backend = "memory";
  constructor(readonly posts: StoredPost[]) {}

  async open(): Promise<void> {}

  /** The oracle aggregates the posts themselves; it has no rollups to keep. */
  async recordUpsert(): Promise<void> {}

  async rebuildRollups(): Promise<void> {}

  async rollupsFresh(): Promise<undefined> {
    return undefined;
  }

  async latestCreated(): Promise<number | undefined> {
    return this.posts.length === 0 ? undefined : Math.max(...this.posts.map((p) => p.created));
  }

  async aggregateByTopic(window: TimeWindow): Promise<TopicWindowStats[]> {
    const groups = new Map<string, StoredPost[]>();
    for (const p of this.posts) {
      if (p.topicId === "" || !inWindow(p, window)) continue;
      groups.set(p.topicId, [...(groups.get(p.topicId) ?? []), p]);
    }
    return [...groups].map(([topicId, ps]) => {
      const subs = new Map<string, number>();
      for (const p of ps) subs.set(p.subforum, (subs.get(p.subforum) ?? 0) + 1);
      return {
        topicId,
        count: ps.length,
        upvotes: ps.reduce((s, p) => s + p.upvotes, 0),
        comments: ps.reduce((s, p) => s + p.comments, 0),
        meanSentiment: ps.reduce((s, p) => s + p.sentimentScore, 0) / ps.length,
        topSubforums: [...subs]
          .map(([subforum, count]) => ({ subforum, count }))
          .sort(bySubforumCount)
          .slice(0, TOP_SUBFORUMS),
      };
    });
  }

  async countsByTopicAndBucket(range: TimeWindow, bucketMs: number): Promise<Map<string, number[]>> {
    const n = bucketCount(range, bucketMs);
    const out = new Map<string, number[]>();
    for (const p of this.posts) {
      if (p.topicId === "" || !inWindow(p, range)) continue;
      const counts = out.get(p.topicId) ?? new Array<number>(n).fill(0);
      counts[Math.floor((p.created - range.from) / bucketMs)]!++;
      out.set(p.topicId, counts);
    }
    return out;
  }

  async trendInputs(window: TimeWindow, buckets: number): Promise<TrendInputs> {
    const { range, bucketMs } = baselineRange(window, buckets);
    return {
      stats: await this.aggregateByTopic(window),
      baselines: buckets > 0 ? await this.countsByTopicAndBucket(range, bucketMs) : new Map<string, number[]>(),
    };
  }

  async topPostsFor(asks: readonly TopPostsAsk[], n: number): Promise<Map<string, TopicPost[]>[]> {
    return Promise.all(asks.map((a) => this.topPosts(a.topicIds, a.window, n)));
  }

  async topPosts(topicIds: readonly string[], window: TimeWindow, n: number): Promise<Map<string, TopicPost[]>> {
    return new Map(topicIds.map((id) => [id, this.topOf(id, window, n)]));
  }

  private topOf(topicId: string, window: TimeWindow, n: number): TopicPost[] {
    return this.posts
      .filter((p) => p.topicId === topicId && inWindow(p, window))
      .map((p) => ({
        id: p.id,
        title: p.title,
        content: p.content.slice(0, TOPIC_POST_CONTENT_CHARS),
        subforum: p.subforum,
        upvotes: p.upvotes,
        comments: p.comments,
        created: p.created,
      }))
      .sort(byEngagement)
      .slice(0, Math.max(0, n));
  }

  async *scanVectors(batchSize: number): AsyncIterable<ScannedPost[]> {
    for (let i = 0; i < this.posts.length; i += batchSize) {
      yield this.posts.slice(i, i + batchSize).map((p) => ({
        id: p.id,
        vector: p.vector ?? new Float32Array(0),
        title: p.title,
        content: p.content,
        topicId: p.topicId,
      }));
    }
  }

  async setTopics(assignments: readonly TopicAssignment[]): Promise<number> {
    const byId = new Map(this.posts.map((p) => [p.id, p]));
    let n = 0;
    for (const a of assignments) {
      const p = byId.get(a.id);
      if (p) {
        p.topicId = a.topicId;
        n++;
      }
    }
    return n;
  }

  async close(): Promise<void> {}
}
