/**
 * Spherical k-means: clusters unit vectors by cosine similarity. Seeds with greedy k-means++ (each
 * new seed the best of a few drawn with probability proportional to their cosine distance 1 - cos
 * to the nearest seed), then alternates assignment and mean-then-normalise updates until no point
 * moves or `maxIterations` is reached. A cluster that empties is re-seeded with the point worst
 * served by its centroid, so k clusters always come back. Deterministic for a given seed.
 */
import { seededRandom } from "./random.js";
import { dot, nearest, unit } from "./vectors.js";

/** Options of {@link sphericalKMeans}. */
export interface KMeansOptions {
  k: number;
  seed: number;
  maxIterations?: number;
}

/** Centroids (unit vectors) and each input's cluster index. */
export interface KMeansResult {
  centroids: Float32Array[];
  assignments: Int32Array;
  iterations: number;
}

/**
 * The documented rule for the number of topics: about sqrt(n / 2), at least 20 and at most 200,
 * and never more than the number of posts.
 */
export function chooseK(n: number): number {
  return Math.min(n, Math.max(20, Math.min(200, Math.round(Math.sqrt(n / 2)))));
}

/**
 * Greedy k-means++: each step draws {@link seedTrials} candidates by cosine distance to the
 * nearest seed so far and keeps the one that leaves the least total distance. One draw per step
 * (plain k-means++) put two seeds in one theme and merged two others for 3 of 40 seeds on the
 * three-theme test corpus, none of 40 with it; the greedy form is also what scikit-learn's
 * k-means++ does. It costs a pass over the sample per candidate instead of per step: on 20,000
 * 512-d posts with k = 177 the seeding took ~30 s more (one Lloyd iteration costs ~4.5 s), in a
 * rebuild that runs offline while the server keeps answering.
 */
function seedCentroids(points: readonly Float32Array[], k: number, random: () => number): Float32Array[] {
  const n = points.length;
  const first = Math.floor(random() * n);
  const centroids = [points[first]!];
  let gap = new Float64Array(n);
  // Sum of `gap`: the chosen candidate's potential from the second step on.
  let total = 0;
  for (let i = 0; i < n; i++) {
    gap[i] = Math.max(0, 1 - dot(points[i]!, centroids[0]!));
    total += gap[i]!;
  }
  let candidateGap = new Float64Array(n);
  let bestGap = new Float64Array(n);
  const trials = seedTrials(k);
  while (centroids.length < k) {
    let best = -1;
    let bestPotential = Infinity;
    for (let t = 0; t < trials; t++) {
      let pick = 0;
      if (total > 0) {
        let r = random() * total;
        for (pick = 0; pick < n - 1; pick++) {
          r -= gap[pick]!;
          if (r < 0) break;
        }
      } else {
        pick = Math.floor(random() * n);
      }
      const c = points[pick]!;
      let potential = 0;
      for (let i = 0; i < n; i++) {
        const g = Math.min(gap[i]!, Math.max(0, 1 - dot(points[i]!, c)));
        candidateGap[i] = g;
        potential += g;
      }
      if (potential < bestPotential) {
        bestPotential = potential;
        best = pick;
        [bestGap, candidateGap] = [candidateGap, bestGap];
      }
    }
    centroids.push(points[best]!);
    [gap, bestGap] = [bestGap, gap];
    total = bestPotential;
  }
  return centroids.map((c) => Float32Array.from(c));
}

/** Candidates per greedy k-means++ step: 2 + ln k, as scikit-learn draws. */
export function seedTrials(k: number): number {
  return 2 + Math.floor(Math.log(Math.max(1, k)));
}

/** Clusters unit vectors `points` into `opts.k` groups. */
export function sphericalKMeans(points: readonly Float32Array[], opts: KMeansOptions): KMeansResult {
  const n = points.length;
  const k = Math.min(opts.k, n);
  if (k < 1) return { centroids: [], assignments: new Int32Array(0), iterations: 0 };
  const dims = points[0]!.length;
  const random = seededRandom(opts.seed);
  let centroids = seedCentroids(points, k, random);
  const assignments = new Int32Array(n).fill(-1);
  const similarity = new Float64Array(n);
  const maxIterations = opts.maxIterations ?? 25;
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    let moved = 0;
    for (let i = 0; i < n; i++) {
      const best = nearest(points[i]!, centroids);
      similarity[i] = best.similarity;
      if (best.index !== assignments[i]) {
        assignments[i] = best.index;
        moved++;
      }
    }
    if (moved === 0 && iterations > 0) break;
    const sums = Array.from({ length: k }, () => new Float64Array(dims));
    const sizes = new Int32Array(k);
    for (let i = 0; i < n; i++) {
      const c = assignments[i]!;
      sizes[c]!++;
      const p = points[i]!;
      const s = sums[c]!;
      for (let d = 0; d < dims; d++) s[d]! += p[d]!;
    }
    centroids = sums.map((s) => unit(s));
    for (let c = 0; c < k; c++) {
      if (sizes[c]! > 0) continue;
      // Re-seed an empty cluster with the point its current centroid serves worst.
      let worst = 0;
      for (let i = 1; i < n; i++) if (similarity[i]! < similarity[worst]!) worst = i;
      centroids[c] = Float32Array.from(points[worst]!);
      similarity[worst] = Infinity;
    }
  }
  // The returned assignments always refer to the returned centroids.
  for (let i = 0; i < n; i++) assignments[i] = nearest(points[i]!, centroids).index;
  return { centroids, assignments, iterations };
}
