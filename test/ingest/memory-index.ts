/**
 * TEST DOUBLE, for the pipeline's unit tests only: an in-memory SearchIndex that keeps upserted
 * posts by id and lets a test refuse chosen ids or fail a write, which the real adapters cannot
 * be made to do on demand. Queries are brute force (cosine for vectors, term overlap for words)
 * so a test can check what was stored; the real backends are exercised by test/index and by the
 * resumability test, which ingests into LanceDB.
 */

import type {
  Hit,
  HybridQuery,
  IndexInfo,
  KeywordQuery,
  QueryFilter,
  ScanQuery,
  SearchIndex,
  UpsertResult,
  VectorQuery,
} from "../../src/index/search-index.js";
import { EmbeddingModelMismatchError } from "../../src/index/search-index.js";
import type { EnrichedPost, IndexedPost } from "../../src/model/post.js";

/** In-memory SearchIndex with failure injection; see the module comment. */
export class MemoryIndex implements SearchIndex {
  readonly backend = "memory";
  readonly rows = new Map<string, IndexedPost>();
  /** Ids the next upserts refuse (reported in `failed`). */
  readonly refuse = new Set<string>();
  /** When set, the next upsert throws this and clears it. */
  failNext: Error | undefined;
  /** Artificial write latency, ms. */
  writeDelayMs = 0;
  upserts = 0;
  private model = "";
  private dims = 0;

  async open(embeddingModel: string, dimensions: number): Promise<IndexInfo> {
    if (this.model !== "" && (this.model !== embeddingModel || this.dims !== dimensions)) {
      throw new EmbeddingModelMismatchError(
        `index built with ${this.model}/${this.dims}, asked for ${embeddingModel}/${dimensions}`,
      );
    }
    this.model = embeddingModel;
    this.dims = dimensions;
    return { embeddingModel, dimensions, count: this.rows.size };
  }

  async upsert(posts: readonly IndexedPost[]): Promise<UpsertResult> {
    if (this.writeDelayMs > 0) await new Promise((r) => setTimeout(r, this.writeDelayMs));
    const failure = this.failNext;
    if (failure !== undefined) {
      this.failNext = undefined;
      throw failure;
    }
    this.upserts += 1;
    const result: UpsertResult = { inserted: 0, updated: 0, failed: [] };
    for (const post of posts) {
      if (this.refuse.has(post.id)) result.failed.push({ id: post.id, reason: "refused by test" });
      else if (post.vector.length !== this.dims)
        result.failed.push({ id: post.id, reason: `vector has ${post.vector.length} dimensions` });
      else {
        if (this.rows.has(post.id)) result.updated += 1;
        else result.inserted += 1;
        this.rows.set(post.id, post);
      }
    }
    return result;
  }

  async nearVector(query: VectorQuery): Promise<Hit[]> {
    const vector = await query.vector;
    const hits = this.filtered(query.filter).map((p) => ({ post: strip(p), score: cosine(p.vector, vector) }));
    return page(hits, query);
  }

  async keyword(query: KeywordQuery): Promise<Hit[]> {
    const terms = tokens(query.text);
    const hits = this.filtered(query.filter)
      .map((p) => ({
        post: strip(p),
        score: tokens(`${p.title} ${p.content}`).filter((t) => terms.includes(t)).length,
      }))
      .filter((h) => h.score > 0);
    return page(hits, query);
  }

  async hybrid(query: HybridQuery): Promise<Hit[]> {
    const queryVector = await query.vector;
    const terms = tokens(query.text);
    const hits = this.filtered(query.filter).map((p) => {
      const words = tokens(`${p.title} ${p.content}`);
      const keyword = terms.length === 0 ? 0 : terms.filter((t) => words.includes(t)).length / terms.length;
      const vector = (cosine(p.vector, queryVector) + 1) / 2;
      return { post: strip(p), score: query.alpha * vector + (1 - query.alpha) * keyword };
    });
    return page(hits, query);
  }

  async get(ids: readonly string[]): Promise<EnrichedPost[]> {
    return ids.flatMap((id) => {
      const row = this.rows.get(id);
      return row === undefined ? [] : [strip(row)];
    });
  }

  async getIndexed(ids: readonly string[]): Promise<IndexedPost[]> {
    return ids.flatMap((id) => {
      const row = this.rows.get(id);
      return row === undefined ? [] : [{ ...row, vector: Float32Array.from(row.vector) }];
    });
  }

  /** Every match sorted by (created, id), cut after the cursor: the reference order of a scan. */
  async scan(query: ScanQuery): Promise<EnrichedPost[]> {
    const after = query.after;
    return this.filtered(query.filter)
      .sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .filter(
        (p) => after === undefined || p.created > after.created || (p.created === after.created && p.id > after.id),
      )
      .slice(0, query.limit)
      .map(strip);
  }

  async count(): Promise<number> {
    return this.rows.size;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  private filtered(filter: QueryFilter | undefined): IndexedPost[] {
    return [...this.rows.values()].filter(
      (p) =>
        (filter?.subforums === undefined || filter.subforums.includes(p.subforum)) &&
        (filter?.createdFrom === undefined || p.created >= filter.createdFrom) &&
        (filter?.createdTo === undefined || p.created <= filter.createdTo) &&
        (filter?.minLeadScore === undefined || (p.leadType !== "" && p.leadScore >= filter.minLeadScore)),
    );
  }
}

function strip(p: IndexedPost): EnrichedPost {
  const { vector: _, ...post } = p;
  return post;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function page(hits: Hit[], p: { limit: number; offset: number }): Hit[] {
  return hits
    .sort((a, b) => b.score - a.score || a.post.id.localeCompare(b.post.id))
    .slice(p.offset, p.offset + p.limit);
}
