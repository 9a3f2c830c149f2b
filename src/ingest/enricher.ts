/**
 * Enrichment at ingest: what a post gains between reading and indexing (sentiment, lead fields,
 * topic). The pipeline takes an Enricher as a dependency, so the insights work can swap in its
 * classifier without touching ingestion.
 */
import type { EnrichedPost, Post } from "../model/post.js";

/**
 * Adds enrichment fields to a batch of posts; output is in input order, one per post. `vectors`
 * are the posts' embeddings (same order), computed once by the pipeline for the index.
 */
export interface Enricher {
  enrich(posts: readonly Post[], vectors: readonly Float32Array[]): Promise<EnrichedPost[]>;
}
