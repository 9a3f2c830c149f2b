/**
 * Hybrid fusion of a keyword result list and a vector result list into one 0..1 score, the
 * way Weaviate does it, so the embedded index and Weaviate rank hybrid queries alike.
 *
 * - relativeScore: each side is min-max normalised to 0..1 over its own candidates (a side
 *   whose candidates all score the same gets 1), then `alpha * vector + (1 - alpha) * keyword`.
 *   A post missing from one side gets 0 from that side.
 * - rankedFusion: reciprocal rank fusion, `alpha / (k + rank_v) + (1 - alpha) / (k + rank_k)`
 *   with k = 60 and ranks from 0, divided by 1 / k so that a post ranked first on both sides
 *   scores 1.
 * Ties are broken by id so that the order, and therefore pagination, is deterministic.
 */

/** One candidate from one side, higher `score` = better. */
export interface Scored {
  id: string;
  score: number;
}

/** The fusion algorithms both backends offer. */
export type FusionType = "relativeScore" | "rankedFusion";

/** Reciprocal-rank constant of the ranked fusion. */
export const RRF_K = 60;

/** Fuses the two sides; returns every candidate sorted by fused score, descending. */
export function fuse(keyword: readonly Scored[], vector: readonly Scored[], alpha: number, type: FusionType): Scored[] {
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`alpha must be between 0 and 1, got ${alpha}`);
  const kw = type === "relativeScore" ? normalise(keyword) : reciprocalRanks(keyword);
  const vec = type === "relativeScore" ? normalise(vector) : reciprocalRanks(vector);
  const fused = new Map<string, number>();
  for (const [id, s] of kw) fused.set(id, (1 - alpha) * s);
  for (const [id, s] of vec) fused.set(id, (fused.get(id) ?? 0) + alpha * s);
  return [...fused].map(([id, score]) => ({ id, score: clamp01(score) })).sort(byScoreThenId);
}

/** Min-max normalisation of one side to 0..1 (first occurrence of an id wins). */
export function normalise(side: readonly Scored[]): Map<string, number> {
  const out = new Map<string, number>();
  if (side.length === 0) return out;
  let min = Infinity;
  let max = -Infinity;
  for (const { score } of side) {
    if (score < min) min = score;
    if (score > max) max = score;
  }
  const range = max - min;
  for (const { id, score } of side) {
    if (!out.has(id)) out.set(id, range > 0 ? (score - min) / range : 1);
  }
  return out;
}

function reciprocalRanks(side: readonly Scored[]): Map<string, number> {
  const out = new Map<string, number>();
  [...side].sort(byScoreThenId).forEach(({ id }, rank) => {
    if (!out.has(id)) out.set(id, RRF_K / (RRF_K + rank));
  });
  return out;
}

/** Sort order for fused results: score descending, then id ascending. */
export function byScoreThenId(a: Scored, b: Scored): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/**
 * Candidates each side contributes on the embedded index: pages are cut from fixed windows of
 * this many. (Weaviate fuses to its own depth: weaviate/hybrid-window.ts.)
 */
export const HYBRID_WINDOW = 200;

/**
 * How many candidates to fetch per side for a page. Normalisation depends on the candidate set,
 * so the set must not change between pages: it grows in whole windows of {@link HYBRID_WINDOW},
 * and every page inside one window is cut from the same fused list (no overlap, no gap).
 */
export function candidateDepth(offset: number, limit: number): number {
  return Math.max(1, Math.ceil((offset + limit) / HYBRID_WINDOW)) * HYBRID_WINDOW;
}
