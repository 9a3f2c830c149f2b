/**
 * A SearchIndex that keeps the per-(topic, day) trend rollups current on every upsert: it reads
 * the stored versions of the ids being written (so a re-ingested post takes its old contribution
 * back instead of counting twice), writes the posts, then records the delta for the posts that
 * were written. A post identical to its stored version (every field and the vector) is left out
 * of the write and counted `unchanged`. Everything else passes through. Rollups trail the posts
 * by one write; src/index/rollup-gate.ts decides when a reader may use them.
 *
 * The pre-read is skipped for ids that cannot exist yet: when the index was empty at open(), only
 * ids this instance has written since can have a stored version, so a first load into a fresh
 * index reads nothing back. That holds with one writer, which the embedded index enforces (its
 * writer lock); two processes loading the same new Weaviate collection at once could both count
 * a post they share, which leaves the rollups over the post count once both are done, so the
 * gate backfills them. Past {@link MAX_TRACKED_IDS} written ids the set stops growing and every
 * id is read again.
 */
import type { IndexedPost } from "../model/post.js";
import type { RollupWriter } from "../topics/rollup.js";
import { samePost } from "./same-post.js";
import type {
  HybridQuery,
  IndexInfo,
  KeywordQuery,
  ScanQuery,
  SearchIndex,
  UpsertResult,
  VectorQuery,
} from "./search-index.js";

/** Written ids remembered for skipping the pre-read (about 100 MB of strings at this size). */
export const MAX_TRACKED_IDS = 1_000_000;

export class RollupMaintainingIndex implements SearchIndex {
  /** Ids written since an open() that found the index empty; undefined when every id may exist. */
  #written: Set<string> | undefined;

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
    this.#written = info.count === 0 ? new Set() : undefined;
    return info;
  }

  async upsert(posts: readonly IndexedPost[], signal?: AbortSignal): Promise<UpsertResult> {
    // Last write of an id wins inside one batch, as in the index.
    const latest = new Map(posts.map((p) => [p.id, p]));
    const previous = await this.getIndexed(this.mayExist([...latest.keys()]), signal);
    // A post identical to its stored version is not written again: re-ingesting a dump that
    // changed in a few posts writes those few (and moves no rollup), where it rewrote every row.
    const unchanged = new Set(previous.filter((p) => samePost(p, latest.get(p.id)!)).map((p) => p.id));
    const changed = unchanged.size === 0 ? posts : posts.filter((p) => !unchanged.has(p.id));
    if (changed.length === 0) return { inserted: 0, updated: 0, unchanged: unchanged.size, failed: [] };
    let result: UpsertResult;
    try {
      result = await this.inner.upsert(changed, signal);
    } catch (err) {
      // A failed or aborted write may still have landed some rows: from now on read every id.
      this.#written = undefined;
      throw err;
    }
    const failed = new Set(result.failed.map((f) => f.id));
    const written = [...latest.values()].filter((p) => !failed.has(p.id) && !unchanged.has(p.id));
    const known = this.#written;
    if (known !== undefined) {
      for (const p of written) known.add(p.id);
      if (known.size > MAX_TRACKED_IDS) this.#written = undefined;
    }
    await this.rollups.recordUpsert(
      previous.filter((p) => !failed.has(p.id) && !unchanged.has(p.id)),
      written,
      signal,
    );
    return { ...result, unchanged: unchanged.size };
  }

  /** Stored versions with vectors; ids this instance knows cannot be stored yet are not looked up. */
  async getIndexed(ids: readonly string[], signal?: AbortSignal): Promise<IndexedPost[]> {
    const wanted = this.mayExist(ids);
    return wanted.length === 0 ? [] : this.inner.getIndexed(wanted, signal);
  }

  /** The ids that may have a stored version (see the module comment). */
  private mayExist(ids: readonly string[]): readonly string[] {
    const known = this.#written;
    return known === undefined ? ids : ids.filter((id) => known.has(id));
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

  scan(query: ScanQuery, signal?: AbortSignal) {
    return this.inner.scan(query, signal);
  }

  /** The inner index's similar scan, when it has one (reads pass through). */
  get scanSimilar(): SearchIndex["scanSimilar"] {
    return this.inner.scanSimilar?.bind(this.inner);
  }

  /** The inner index's aggregate, when it has one (reads pass through). */
  get aggregate(): SearchIndex["aggregate"] {
    return this.inner.aggregate?.bind(this.inner);
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
