/**
 * Vector helpers for spherical clustering: everything works on unit vectors, where cosine
 * similarity is a dot product.
 */

/** Dot product of two equal-length vectors. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A unit-length copy of `v`; a zero vector stays zero. */
export function unit(v: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(v as ArrayLike<number>);
  const norm = Math.sqrt(dot(out, out));
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  return out;
}

/** Index and similarity of the centroid nearest (highest dot product) to `v`; -1 when there are none. */
export function nearest(
  v: ArrayLike<number>,
  centroids: readonly ArrayLike<number>[],
): { index: number; similarity: number } {
  let index = -1;
  let similarity = -Infinity;
  for (let c = 0; c < centroids.length; c++) {
    const s = dot(v, centroids[c]!);
    if (s > similarity) {
      similarity = s;
      index = c;
    }
  }
  return { index, similarity };
}
