/**
 * The contract every search backend implements: the embedded LanceDB index and Weaviate.
 * One contract test suite (test/index/contract.ts) runs against both, so the service above
 * cannot tell them apart except by speed.
 */
import type { EnrichedPost, IndexedPost } from "../model/post.js";
import type { AggregateQuery, AggregateResult } from "./aggregate-query.js";

/** Filters shared by every query. All optional; absent means "no restriction". */
export interface QueryFilter {
  /** Only posts whose subforum is one of these (exact match). */
  subforums?: readonly string[];
  /** Inclusive lower bound on `created`, epoch ms. */
  createdFrom?: number;
  /** Inclusive upper bound on `created`, epoch ms. */
  createdTo?: number;
  /** Only posts whose leadType is non-empty and leadScore >= this. */
  minLeadScore?: number;
  /** Only posts from these sources (exact match). */
  sources?: readonly string[];
  /** No posts from these subforums (exact match); applied after `subforums`. */
  excludeSubforums?: readonly string[];
  /** Only posts by these authors (exact match). */
  authors?: readonly string[];
  /** Only posts with at least this many upvotes. */
  minUpvotes?: number;
  /** Only posts with at least this many comments. */
  minComments?: number;
  /** Only posts with one of these sentiment labels. */
  sentiments?: readonly string[];
  /** Only posts classified as one of these lead types (never "", which means "not a lead"). */
  leadTypes?: readonly string[];
}

/** The list-valued keys of {@link QueryFilter}, each an exact-match set of strings. */
export const FILTER_LISTS = ["subforums", "sources", "excludeSubforums", "authors", "sentiments", "leadTypes"] as const;
/** The numeric keys of {@link QueryFilter}. */
export const FILTER_NUMBERS = ["createdFrom", "createdTo", "minLeadScore", "minUpvotes", "minComments"] as const;

/** A page request shared by every query. */
export interface Page {
  limit: number;
  offset: number;
  /**
   * "result": the caller reads only {@link RESULT_FIELDS} of each hit's post, and an index may
   * leave the other fields empty ("" or 0) to read less (the embedded index reads about half
   * the bytes per page). "lead": likewise with {@link LEAD_FIELDS}. Default "all".
   */
  fields?: "all" | "result" | "lead";
}

/** The post fields search results show (spec 2.1/2.2), and the summary reads. */
export const RESULT_FIELDS = [
  "id",
  "title",
  "content",
  "subforum",
  "upvotes",
  "comments",
  "created",
  "url",
  "sentiment",
] as const;

/** The post fields a lead shows (spec 2.5, FindLeads). */
export const LEAD_FIELDS = [
  "id",
  "title",
  "content",
  "subforum",
  "author",
  "upvotes",
  "comments",
  "url",
  "leadType",
  "leadScore",
  "painPoint",
  "opportunity",
  "industry",
  "targetProduct",
] as const;

/** One hit. `score` is on the scale the method documents. */
export interface Hit {
  post: EnrichedPost;
  score: number;
}

/** Hybrid (keyword + vector) query. */
export interface HybridQuery extends Page {
  text: string;
  /**
   * The query's embedding, or a promise of it: an index may start its keyword side while the
   * query is still being embedded (the embedded index does), so the two overlap.
   */
  vector: Float32Array | Promise<Float32Array>;
  filter?: QueryFilter;
  /** Weight of the vector side, 0 (keyword only) .. 1 (vector only). */
  alpha: number;
  /**
   * Picks and orders the hits to return from the page's candidates (the fused list's
   * `offset`..`offset + limit`, best first) before any post is read, so that only the picked
   * posts are read (the post's text is the costly part of a read). It may pick none: FindLeads
   * and a thresholded SemanticSearch take the candidates this way and read them with their
   * vectors (getIndexed, core/judged-candidates.ts) to judge each. Default: every candidate,
   * in fused order.
   */
  choose?: (page: readonly HybridCandidate[]) => readonly HybridCandidate[];
}

/** A fused hybrid candidate before its post is read: what {@link HybridQuery.choose} picks by. */
export interface HybridCandidate {
  id: string;
  /** The fused relevance the hit will carry as its score. */
  score: number;
  leadType: string;
  leadScore: number;
}

/** Pure vector query. */
export interface VectorQuery extends Page {
  /**
   * The query's embedding, or a promise of it: the embedded index reads its vector index's
   * statistics (which choose the search plan) while the query is still being embedded.
   */
  vector: Float32Array | Promise<Float32Array>;
  filter?: QueryFilter;
}

/** Pure keyword (BM25) query. */
export interface KeywordQuery extends Page {
  text: string;
  filter?: QueryFilter;
}

/** Where a scan resumes: just after this post in (created, id) order. */
export interface ScanCursor {
  /** The last post's `created`, epoch ms. */
  created: number;
  /** The last post's id. */
  id: string;
}

/**
 * One keyset page of a full pass over the posts matching a filter, in export order: `created`
 * ascending, then id ascending (ids compared by their UTF-8 bytes, as both engines compare
 * strings). The next page starts after the last post of this one, so a pass reads each match
 * exactly once in constant memory, however many there are.
 */
export interface ScanQuery {
  filter?: QueryFilter;
  /** Absent for the first page. */
  after?: ScanCursor;
  /** Posts per page, 1..{@link SCAN_LIMIT_MAX}. */
  limit: number;
}

/** Largest scan page. */
export const SCAN_LIMIT_MAX = 1_000;

/** The similarity bound of an aggregate or a similar scan: cosine similarity to `vector` of at least `minSimilarity`. */
export interface SimilarityBound {
  vector: Float32Array;
  minSimilarity: number;
}

/**
 * One keyset page of a pass over the posts matching a filter whose cosine similarity to a
 * vector is at least a threshold, in export order: the engine takes the next `limit` posts
 * matching the filter after `after` (as {@link ScanQuery} does) and keeps those within the
 * threshold, deciding it the way its aggregate does, so a whole pass is the set
 * {@link SearchIndex.aggregate} counts for the same filter and bound.
 */
export interface SimilarScanQuery extends ScanQuery {
  near: SimilarityBound;
}

/** A page of a similar scan. */
export interface SimilarScanPage {
  /** The page's posts within the threshold, in (created, id) order; `score` is the cosine similarity. May be empty before the end. */
  hits: Hit[];
  /** Where the next page starts (the last post examined); absent when the pass is over. */
  next?: ScanCursor;
}

/** Result of a batch write. */
export interface UpsertResult {
  inserted: number;
  updated: number;
  /**
   * Posts identical to their stored version (every field and the vector), which were not
   * written. Only indexes that compare before writing report it (RollupMaintainingIndex, which
   * reads the stored versions anyway); absent means none were told apart from `updated`.
   */
  unchanged?: number;
  failed: { id: string; reason: string }[];
}

/** What the index records about how it was built. */
export interface IndexInfo {
  /** Embedding model id that produced the stored vectors. */
  embeddingModel: string;
  dimensions: number;
  count: number;
}

/** Thrown when the index cannot be reached or answered with a server-side failure. */
export class IndexUnavailableError extends Error {
  override readonly name = "IndexUnavailableError";
}

/** Thrown at open() when the stored vectors come from another embedding model. */
export class EmbeddingModelMismatchError extends Error {
  override readonly name = "EmbeddingModelMismatchError";
}

/** A search backend. Every method that talks to the engine takes the caller's abort signal. */
export interface SearchIndex {
  /** "lancedb" or "weaviate". */
  readonly backend: string;
  /**
   * Creates or migrates storage. Fails with EmbeddingModelMismatchError when the index
   * holds vectors from a different model than `embeddingModel`.
   */
  open(embeddingModel: string, dimensions: number): Promise<IndexInfo>;
  /** Inserts or replaces posts by id. Never duplicates an id. */
  upsert(posts: readonly IndexedPost[], signal?: AbortSignal): Promise<UpsertResult>;
  /** Hybrid retrieval; `score` is the fused relevance in 0..1. */
  hybrid(query: HybridQuery, signal?: AbortSignal): Promise<Hit[]>;
  /** Vector retrieval; `score` is cosine similarity in -1..1, sorted descending. */
  nearVector(query: VectorQuery, signal?: AbortSignal): Promise<Hit[]>;
  /** Keyword retrieval; `score` is the engine's BM25 score (unbounded, >= 0). */
  keyword(query: KeywordQuery, signal?: AbortSignal): Promise<Hit[]>;
  /** Posts by id, in the order asked; missing ids are left out. */
  get(ids: readonly string[], signal?: AbortSignal): Promise<EnrichedPost[]>;
  /**
   * Posts by id with their stored vectors, in the order asked; missing ids are left out. Ingest
   * reads them to reuse the embedding of a post whose text has not changed.
   */
  getIndexed(ids: readonly string[], signal?: AbortSignal): Promise<IndexedPost[]>;
  /** One keyset page of the posts matching a filter, in (created, id) order; fewer than `limit` only on the last page. */
  scan(query: ScanQuery, signal?: AbortSignal): Promise<EnrichedPost[]>;
  /**
   * One page of the posts matching a filter and a similarity threshold (ExportPosts with a
   * query). Optional: such an export answers `unimplemented` over an index without it.
   */
  scanSimilar?(query: SimilarScanQuery, signal?: AbortSignal): Promise<SimilarScanPage>;
  /**
   * Counts and a date histogram of the posts a filter (and a similarity threshold) selects,
   * computed in the engine (aggregate-query.ts). Optional: AggregatePosts answers
   * `unimplemented` over an index without it.
   */
  aggregate?(query: AggregateQuery, signal?: AbortSignal): Promise<AggregateResult>;
  /** Number of stored posts. */
  count(signal?: AbortSignal): Promise<number>;
  /** Cheap liveness check for readiness and health. */
  ping(signal?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}
