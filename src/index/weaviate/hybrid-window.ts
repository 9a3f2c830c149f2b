/**
 * Which candidates a Weaviate hybrid page is fused from, and who cuts the page.
 *
 * Weaviate ranks each side (BM25, vector) to max(QUERY_HYBRID_MAXIMUM_RESULTS, offset + limit)
 * results, normalises and fuses those, then cuts [offset, offset + limit) itself. Every page that
 * ends within the server's maximum (100 unless its operator lowered it) is therefore cut from one
 * and the same fused list, so Weaviate can return just the page. Asking it for a whole window of
 * 200 and cutting the page here (as the embedded index must, fusion.ts) made Weaviate rank 200
 * per side and load, send and the client decode 200 objects per call: at 93k posts a
 * SemanticSearch hybrid with its page read took 20.2 ms that way and 15.6 ms this way, FindLeads
 * 25.2 and 20.5 ms; the shallower fusion kept 86% of the top 10 (docs/BENCHMARKS.md).
 * A page ending past the depth is cut here from a window of whole multiples of it, so the pages
 * inside one such window do not overlap either.
 */

/**
 * Weaviate's default QUERY_HYBRID_MAXIMUM_RESULTS. A server configured below it would fuse pages
 * ending under it from lists of different depths (pages could overlap); above it is fine (the
 * fused lists are then deeper than this, and still one list per window).
 */
export const WEAVIATE_HYBRID_WINDOW = 100;

/** How to ask Weaviate for a hybrid page. */
export interface HybridRequest {
  limit: number;
  offset: number;
  /** True when the answer is a whole window and the page must be cut from it by the caller. */
  cutHere: boolean;
}

/** The request for the page [offset, offset + limit). */
export function hybridRequest(offset: number, limit: number): HybridRequest {
  const end = offset + limit;
  if (end <= WEAVIATE_HYBRID_WINDOW) return { limit, offset, cutHere: false };
  return { limit: Math.ceil(end / WEAVIATE_HYBRID_WINDOW) * WEAVIATE_HYBRID_WINDOW, offset: 0, cutHere: true };
}
