/**
 * Stable pages for engines whose tie order is not deterministic across calls (BM25 scores tie
 * often: equal-length posts with the same term counts, cross-posts). A page is cut from a window
 * of candidates reaching well past it (keywordDepth here; fusion.ts candidateDepth for hybrid),
 * sorted by score, then id, so consecutive pages neither overlap nor skip. Ties straddling the
 * window's last place remain the engine's choice.
 */

/** Granularity of keyword candidate windows. */
export const KEYWORD_WINDOW = 50;

/**
 * Candidates to fetch for a keyword page: whole windows of {@link KEYWORD_WINDOW} with at least
 * half a window beyond the page, so ties at the window's edge cannot reach into the page.
 * Unlike hybrid (fusion.ts candidateDepth) no score depends on the window, so it can be small;
 * BM25 gets slower with a deeper top-k (Weaviate: ~2x from 10 to 200).
 */
export function keywordDepth(offset: number, limit: number): number {
  return Math.ceil((offset + limit + KEYWORD_WINDOW / 2) / KEYWORD_WINDOW) * KEYWORD_WINDOW;
}

/** Sorts by score descending, then `idOf` ascending, and cuts offset..offset+limit. */
export function stablePage<T extends { score: number }>(
  items: T[],
  idOf: (item: T) => string,
  offset: number,
  limit: number,
): T[] {
  return items
    .map((item) => ({ item, id: idOf(item) }))
    .sort((a, b) => b.item.score - a.item.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(offset, offset + limit)
    .map(({ item }) => item);
}
