/**
 * The forum post as every layer sees it. Readers produce `Post`; enrichment adds the fields of
 * `EnrichedPost`; indexes store and return `EnrichedPost` (minus the vector on the way out).
 * This module is a leaf: it imports nothing, so every layer may depend on it.
 */

/** Where a post came from. Identity is (source, nativeId). */
export type PostSource = "reddit" | "hackernews" | "stackexchange" | (string & {});

/** Sentiment labels, the closed set the API documents. */
export const SENTIMENT_LABELS = ["positive", "neutral", "negative"] as const;
/** One of {@link SENTIMENT_LABELS}. */
export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];

/** Lead types, the closed set the API documents; "" means "not a lead". */
export const LEAD_TYPES = ["pain_point", "solution_request", "buying_intent", "comparison", "advice_request"] as const;
/** One of {@link LEAD_TYPES}, or "" for a post that is not a lead. */
export type LeadType = (typeof LEAD_TYPES)[number] | "";

/** A post as read from a source, before enrichment. */
export interface Post {
  /** `${source}:${nativeId}`: the id the API shows and the index's primary key. */
  id: string;
  source: PostSource;
  /** The source's own identifier (reddit base36 id, HN item id, SE question id). */
  nativeId: string;
  title: string;
  /** Body text, plain (markup stripped by the reader). May be empty (HN links). */
  content: string;
  subforum: string;
  /** Poster's username; "" when the source lacks it (the reddit dump has no author). */
  author: string;
  upvotes: number;
  comments: number;
  /** Creation time, epoch milliseconds UTC. */
  created: number;
  url: string;
}

/** What enrichment adds at ingest. */
export interface Enrichment {
  sentiment: SentimentLabel;
  /** -1..1 */
  sentimentScore: number;
  leadType: LeadType;
  /** 0..100; 0 when leadType is "". */
  leadScore: number;
  painPoint: string;
  opportunity: string;
  industry: string;
  targetProduct: string;
  /** Topic id from the topic model; "" until a model exists. */
  topicId: string;
}

/** A post with its enrichment, as stored in and returned by an index. */
export interface EnrichedPost extends Post, Enrichment {}

/** An enriched post with its embedding, as written to an index. */
export interface IndexedPost extends EnrichedPost {
  vector: Float32Array;
}

/** Builds the canonical post id. */
export function postId(source: PostSource, nativeId: string): string {
  return `${source}:${nativeId}`;
}
