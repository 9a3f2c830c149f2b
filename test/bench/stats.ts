/**
 * Small statistics for the benchmark: medians and nearest-rank percentiles over samples taken
 * in one session, and a bounded loop helper so every measurement stops by itself.
 */

/** The median (lower middle for even counts, so it is always a measured value). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

/** Nearest-rank percentile, p in 0..100. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

/** Milliseconds since `t0` (a process.hrtime.bigint() reading). */
export function msSince(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** A number with fixed decimals, "-" when not finite. */
export function fixed(x: number, digits = 1): string {
  return Number.isFinite(x) ? x.toFixed(digits) : "-";
}

/** Thousands separators. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}
