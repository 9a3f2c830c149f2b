/**
 * A SearchIndex that keeps the per-(topic, day) trend rollups current on every upsert: it reads
 * the stored versions of the ids being written (so a re-ingested post takes its old contribution
 * back instead of counting twice), writes the posts, then records the delta for the posts that
 * were written. Everything else passes through. Rollups trail the posts by one write; readers
 * check that the rollups count every post before using them (src/topics/rollup-freshness.ts).
 */
import type { IndexedPost } from "../model/post.js";
import type { RollupPost, RollupWriter } from "../topics/rollup.js";
import type { HybridQuery, IndexInfo, KeywordQuery, SearchIndex, UpsertResult, VectorQuery } from "./search-index.js";

export class RollupMaintainingIndex implements SearchIndex {
  constructor(
    private readonly inner: SearchIndex,
    private readonly rollups: RollupWriter,
  ) {}

  get backend(): string {
    return this.inner.backend;
  }

  async open(embeddingModel: string, dimensions: number): Promise<IndexInfo> {
    const info = await this.inner.open(embeddingModel, dimensions);
    await this.rollups.open();
    return info;
  }

  async upsert(posts: readonly IndexedPost[], signal?: AbortSignal): Promise<UpsertResult> {
    // Last write of an id wins inside one batch, as in the index.
    const unique = [...new Map(posts.map((p) => [p.id, p])).values()];
    const previous: RollupPost[] = await this.inner.get(unique.map((p) => p.id), signal);
    const result = await this.inner.upsert(posts, signal);
    const failed = new Set(result.failed.map((f) => f.id));
    const written = unique.filter((p) => !failed.has(p.id));
    await this.rollups.recordUpsert(previous.filter((p) => !failed.has(p.id)), written, signal);
    return result;
  }

  hybrid(query: HybridQuery, signal?: AbortSignal) {
    return this.inner.hybrid(query, signal);
  }

  nearVector(query: VectorQuery, signal?: AbortSignal) {
    return this.inner.nearVector(query, signal);
  }

  keyword(query: KeywordQuery, signal?: AbortSignal) {
    return this.inner.keyword(query, signal);
  }

  get(ids: readonly string[], signal?: AbortSignal) {
    return this.inner.get(ids, signal);
  }

  count(signal?: AbortSignal) {
    return this.inner.count(signal);
  }

  ping(signal?: AbortSignal) {
    return this.inner.ping(signal);
  }

  async close(): Promise<void> {
    try {
      await this.rollups.close();
    } finally {
      await this.inner.close();
    }
  }
}
