/**
 * Groups a page of results into two or three themes by their embeddings: Ward's agglomerative
 * clustering over the vectors, the number of themes chosen by silhouette. Written here rather
 * than taken from a library because it runs over one page (at most a hundred vectors), where a
 * plain O(n^3) merge loop is cheap, and because it must be deterministic: the same page must
 * always give the same summary, which the random starts of k-means do not.
 */

/** Cosine similarity of two vectors (not assumed to be normalised). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** The mean of some vectors. */
export function centroid(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0]?.length ?? 0);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i]! += v[i]! / vectors.length;
  return out;
}

/**
 * Ward's clustering cut at each number of groups from `maxK` down to 2; returns the partitions
 * by their size (`cuts.get(k)`), each group a list of indices into `vectors` in ascending order.
 * Distances are cosine distances (for unit vectors, half the squared Euclidean distance that
 * Ward's criterion is stated in), updated by the Lance-Williams formula.
 */
export function wardCuts(vectors: readonly Float32Array[], maxK: number): Map<number, number[][]> {
  const n = vectors.length;
  const dist: number[][] = vectors.map((a) => vectors.map((b) => 1 - cosine(a, b)));
  let groups: number[][] = vectors.map((_, i) => [i]);
  const cuts = new Map<number, number[][]>();
  while (groups.length > 1) {
    if (groups.length <= maxK)
      cuts.set(
        groups.length,
        groups.map((g) => [...g].sort((x, y) => x - y)),
      );
    if (groups.length === 2) break;
    let bi = 0;
    let bj = 1;
    let best = Infinity;
    for (let i = 0; i < groups.length; i++)
      for (let j = i + 1; j < groups.length; j++)
        if (dist[i]![j]! < best) {
          best = dist[i]![j]!;
          bi = i;
          bj = j;
        }
    const ni = groups[bi]!.length;
    const nj = groups[bj]!.length;
    // Lance-Williams: the merged group's distance to every other group k.
    for (let k = 0; k < groups.length; k++) {
      if (k === bi || k === bj) continue;
      const nk = groups[k]!.length;
      const d = ((ni + nk) * dist[bi]![k]! + (nj + nk) * dist[bj]![k]! - nk * best) / (ni + nj + nk);
      dist[bi]![k] = d;
      dist[k]![bi] = d;
    }
    groups[bi] = [...groups[bi]!, ...groups[bj]!];
    groups = groups.filter((_, k) => k !== bj);
    dist.splice(bj, 1);
    for (const row of dist) row.splice(bj, 1);
  }
  if (n === 1) cuts.set(1, [[0]]);
  return cuts;
}

/** Mean silhouette of a partition under cosine distance (a point alone in its group scores 0). */
export function silhouette(vectors: readonly Float32Array[], groups: readonly number[][]): number {
  let sum = 0;
  for (const [gi, g] of groups.entries()) {
    for (const i of g) {
      if (g.length === 1) continue;
      const meanTo = (h: readonly number[]) =>
        h.reduce((s, j) => s + (j === i ? 0 : 1 - cosine(vectors[i]!, vectors[j]!)), 0) /
        (h.length - (h === g ? 1 : 0));
      const a = meanTo(g);
      const b = Math.min(...groups.filter((_, hi) => hi !== gi).map(meanTo));
      sum += (b - a) / Math.max(a, b, Number.EPSILON);
    }
  }
  return sum / vectors.length;
}

/** Fewest results split into themes: with fewer, one theme holds them all. */
export const MIN_RESULTS_FOR_THEMES = 4;
/** A theme holds at least this many results: a single post is an example, not a theme. */
export const MIN_THEME_SIZE = 2;

/**
 * The themes of `vectors`: two or three groups (the cut with the higher silhouette among those
 * whose every group holds {@link MIN_THEME_SIZE} results or more), or one group when there are
 * too few results or no such cut. Groups come largest first, ties by their first index.
 */
export function themeGroups(vectors: readonly Float32Array[], maxThemes = 3): number[][] {
  const all = [vectors.map((_, i) => i)];
  if (vectors.length < MIN_RESULTS_FOR_THEMES) return all;
  const cuts = wardCuts(vectors, maxThemes);
  let best: number[][] | undefined;
  let bestScore = -Infinity;
  for (let k = 2; k <= maxThemes; k++) {
    const groups = cuts.get(k);
    if (groups === undefined || groups.some((g) => g.length < MIN_THEME_SIZE)) continue;
    const s = silhouette(vectors, groups);
    if (s > bestScore) {
      bestScore = s;
      best = groups;
    }
  }
  return [...(best ?? all)].sort((a, b) => b.length - a.length || a[0]! - b[0]!);
}
