/**
 * Merging near-duplicate clusters. k-means with the documented k splits a large theme when it
 * holds more posts than its share: one event (AlphaGo's match) came out as three topics that
 * each ranked on their own. Clusters whose centroids are closer than {@link MERGE_COSINE} are
 * joined, closest pair first, into one whose centroid is the size-weighted mean of the two; a
 * joined cluster is compared again with the rest, so a chain of close clusters ends as one topic.
 */
import { dot, unit } from "./vectors.js";

/**
 * Cosine similarity of two centroids above which their clusters are one topic. Chosen on the
 * Hacker News corpus of the trends evaluation (see docs/decisions/0008-topics-people-recognise.md)
 * and checked on the reddit one.
 */
export const MERGE_COSINE = 0.95;

/** The centroids after merging, and which merged cluster each input cluster went to. */
export interface MergeResult {
  centroids: Float32Array[];
  /** Input cluster index -> output cluster index. */
  mapping: number[];
}

/**
 * Joins clusters whose centroids' cosine is at least `threshold`. `sizes` weigh each centroid
 * (posts assigned to it). Deterministic: ties go to the lower indexes; outputs keep input order
 * of each group's first member.
 */
export function mergeNearDuplicates(
  centroids: readonly Float32Array[],
  sizes: readonly number[],
  threshold = MERGE_COSINE,
): MergeResult {
  const groups = centroids.map((c, i) => ({
    members: [i],
    sum: Float32Array.from(c, (x) => x * Math.max(1, sizes[i] ?? 0)),
    centroid: c,
    alive: true,
  }));
  // Pairwise similarities, updated for the joined row only: O(k^2 d) once, O(k d) per join.
  const k = groups.length;
  const sim = Array.from({ length: k }, () => new Float64Array(k));
  for (let a = 0; a < k; a++)
    for (let b = a + 1; b < k; b++) sim[a]![b] = sim[b]![a] = dot(groups[a]!.centroid, groups[b]!.centroid);
  for (;;) {
    let best: { a: number; b: number; cos: number } | undefined;
    for (let a = 0; a < k; a++) {
      if (!groups[a]!.alive) continue;
      for (let b = a + 1; b < k; b++) {
        if (!groups[b]!.alive) continue;
        const cos = sim[a]![b]!;
        if (cos >= threshold && (best === undefined || cos > best.cos)) best = { a, b, cos };
      }
    }
    if (best === undefined) break;
    const into = groups[best.a]!;
    const from = groups[best.b]!;
    for (let d = 0; d < into.sum.length; d++) into.sum[d]! += from.sum[d]!;
    into.members.push(...from.members);
    into.centroid = unit(into.sum);
    from.alive = false;
    for (let o = 0; o < k; o++) {
      if (o !== best.a && groups[o]!.alive) sim[best.a]![o] = sim[o]![best.a] = dot(into.centroid, groups[o]!.centroid);
    }
  }
  const alive = groups.filter((g) => g.alive);
  const mapping = new Array<number>(centroids.length).fill(-1);
  alive.forEach((g, out) => {
    for (const m of g.members) mapping[m] = out;
  });
  return { centroids: alive.map((g) => g.centroid), mapping };
}
