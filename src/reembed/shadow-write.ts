/**
 * Writing posts into a reembed's shadow copy, and the catch-up pass that brings the shadow level
 * with the live copy: every post of the live copy is compared with the shadow's version; a post
 * the shadow lacks, or whose embedded text changed, is embedded with the target encoder; one
 * whose other fields changed (an ingest updated its counts) is written with the shadow's vector.
 * Enrichment is computed again for every post written, by the target encoder's enricher: the
 * sentiment model (and through its tone, the lead model) differs per encoder, so the shadow must
 * hold what an ingest with that encoder would store. Topic ids are copied; the topic model moves
 * to the new vectors after the switch.
 */
import { postEmbeddingText } from "../enrich/embed-text.js";
import type { Embedder } from "../enrich/embedder.js";
import { samePost } from "../index/same-post.js";
import type { ScanCursor, SearchIndex } from "../index/search-index.js";
import type { Enricher } from "../ingest/enricher.js";
import type { EnrichedPost, Enrichment, IndexedPost } from "../model/post.js";

/** Writes `posts` with `vectors` into the shadow; a refused post stops the reembed (no switch to an index missing it). */
export async function writeShadow(
  shadow: SearchIndex,
  posts: readonly EnrichedPost[],
  vectors: readonly Float32Array[],
  enricher: Enricher,
  signal?: AbortSignal,
): Promise<void> {
  if (posts.length === 0) return;
  const enriched = await enricher.enrich(posts, vectors);
  const res = await shadow.upsert(
    enriched.map((p, i): IndexedPost => ({ ...p, topicId: posts[i]!.topicId, vector: vectors[i]! })),
    signal,
  );
  if (res.failed.length > 0) {
    const first = res.failed[0]!;
    throw new Error(`the shadow copy refused ${res.failed.length} posts (first ${first.id}: ${first.reason})`);
  }
}

/** What a catch-up pass did. */
export interface CatchUpResult {
  /** Posts of the live copy compared. */
  scanned: number;
  /** Posts embedded again (new in the live copy, or their text changed). */
  embedded: number;
  /** Posts whose other fields were copied with the shadow's vector. */
  copied: number;
}

/** Options of {@link catchUp}. */
export interface CatchUpOptions {
  batch: number;
  signal?: AbortSignal;
  /** After each page: posts compared so far. */
  onPage?: (scanned: number) => void;
}

/** `post` with the enrichment the shadow computed for it (its topic id stays the live one's). */
function withShadowEnrichment(post: EnrichedPost, s: EnrichedPost): EnrichedPost {
  const computed: Omit<Enrichment, "topicId"> = {
    sentiment: s.sentiment,
    sentimentScore: s.sentimentScore,
    leadType: s.leadType,
    leadScore: s.leadScore,
    painPoint: s.painPoint,
    opportunity: s.opportunity,
    industry: s.industry,
    targetProduct: s.targetProduct,
  };
  return { ...post, ...computed };
}

/** One pass over the live copy bringing the shadow level with it; see the module comment. */
export async function catchUp(
  live: SearchIndex,
  shadow: SearchIndex,
  embedder: Embedder,
  enricher: Enricher,
  opts: CatchUpOptions,
): Promise<CatchUpResult> {
  const result: CatchUpResult = { scanned: 0, embedded: 0, copied: 0 };
  let after: ScanCursor | undefined;
  for (;;) {
    opts.signal?.throwIfAborted();
    const page = await live.scan({ limit: opts.batch, ...(after ? { after } : {}) }, opts.signal);
    if (page.length === 0) break;
    const stored = new Map(
      (
        await shadow.getIndexed(
          page.map((p) => p.id),
          opts.signal,
        )
      ).map((p) => [p.id, p]),
    );
    const fresh: EnrichedPost[] = [];
    const kept: IndexedPost[] = [];
    for (const post of page) {
      const s = stored.get(post.id);
      if (s === undefined || postEmbeddingText(s) !== postEmbeddingText(post)) fresh.push(post);
      // Enrichment is the shadow's own (computed from the post and the new vector), so only the
      // post's other fields and its topic id are compared.
      else if (!samePost(s, { ...withShadowEnrichment(post, s), vector: s.vector }))
        kept.push({ ...post, vector: s.vector });
    }
    if (fresh.length > 0)
      await writeShadow(
        shadow,
        fresh,
        await embedder.embed(fresh.map(postEmbeddingText), opts.signal),
        enricher,
        opts.signal,
      );
    if (kept.length > 0)
      await writeShadow(
        shadow,
        kept,
        kept.map((p) => p.vector),
        enricher,
        opts.signal,
      );
    result.scanned += page.length;
    result.embedded += fresh.length;
    result.copied += kept.length;
    opts.onPage?.(result.scanned);
    const last = page[page.length - 1]!;
    after = { created: last.created, id: last.id };
    if (page.length < opts.batch) break;
  }
  return result;
}
