/**
 * The trend formulas, pure and documented here once (the README repeats them):
 *
 * growth_rate = (n + S) / (p + S) - 1, with S = {@link GROWTH_SMOOTHING} = 5, n the topic's posts
 *   in the window and p in the previous equal-length window. Range (-1, n/5]: always finite, and
 *   a topic from nothing with 20 posts grows by (25 / 5) - 1 = 4, not by infinity.
 *
 * acceleration z = (n - median(b)) / max(1.4826 * MAD(b), sqrt(median(b) + 1)), a robust z-score
 *   of the window's count against the topic's counts b in the previous K equal windows; the
 *   Poisson-like floor keeps a flat or empty history from turning one extra post into a huge z.
 *   Clipped to [-5, 5]. Only windows in which the store has posts of some topic count as history
 *   (a window before the first post, or in a gap of the data, is unknown, not zero); with none,
 *   z = 0. With k such windows, z counts min(1, k / {@link FULL_HISTORY_WINDOWS}) of itself: the MAD
 *   of one to three counts is mostly zero, which left the Poisson floor alone to scale a topic's
 *   ordinary month-to-month swing, so the first months after the data began read as surges (the
 *   Hacker News corpus's second to fourth months scored 84, 75 and 73 at the top, the year after it
 *   69-80: a topic's 57 posts against a single earlier month's 28 was z = 5, the clip).
 *
 * trend_score = 100 * logistic(x / 2), x = 0.6 * z + 0.8 * ln((n + 1) / (N + 1)) + 0.4 * ln((e + 1) / (E + 1))
 *   where e is the topic's engagement per post ((upvotes + 2 * comments) / n) and N, E are the
 *   medians of n and e over the topics active in the same window (so volume and engagement are
 *   judged against the window's typical topic, whatever the window length). Range: (0, 100);
 *   50 is a typical topic with a typical history. The halving ({@link SCORE_TEMPERATURE}) keeps
 *   the top apart: by logistic(x) the topics a user reads first all scored 96-99 (a surging
 *   topic with z at its clip sits at x >= 3), so the score no longer told them apart.
 */

/** S in growth_rate. */
export const GROWTH_SMOOTHING = 5;
/** Previous equal windows forming a topic's baseline. */
export const BASELINE_WINDOWS = 8;
/** Weights of the blend. */
export const SCORE_WEIGHTS = Object.freeze({ acceleration: 0.6, volume: 0.8, engagement: 0.4 });
/** x is divided by this before the logistic (see the module comment). */
export const SCORE_TEMPERATURE = 2;
/** |z| is clipped to this. */
export const Z_CLIP = 5;
/** Windows of history from which the acceleration counts fully (see the module comment). */
export const FULL_HISTORY_WINDOWS = 4;

/** Smoothed relative change of `now` against `previous`. */
export function growthRate(now: number, previous: number, smoothing = GROWTH_SMOOTHING): number {
  return (now + smoothing) / (previous + smoothing) - 1;
}

/** Median of a list (0 for an empty list). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Robust z-score of `value` against `history` (median and MAD with a Poisson floor), clipped. */
export function robustZ(value: number, history: readonly number[]): number {
  const m = median(history);
  const mad = median(history.map((h) => Math.abs(h - m)));
  const scale = Math.max(1.4826 * mad, Math.sqrt(m + 1));
  const z = (value - m) / scale;
  return Math.max(-Z_CLIP, Math.min(Z_CLIP, z));
}

/**
 * The acceleration of `value` against the windows of history the store has data in: the robust z,
 * weighted by how much history backs it (module comment). No history: 0.
 */
export function acceleration(value: number, history: readonly number[]): number {
  if (history.length === 0) return 0;
  return robustZ(value, history) * Math.min(1, history.length / FULL_HISTORY_WINDOWS);
}

/** The logistic function. */
export function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** Inputs of {@link trendScore}. */
export interface ScoreInput {
  count: number;
  /** Engagement per post: (upvotes + 2 * comments) / count. */
  engagementPerPost: number;
  /** Robust z of the count against the topic's baseline. */
  z: number;
  /** Median count and engagement per post over the window's active topics. */
  typicalCount: number;
  typicalEngagement: number;
}

/** trend_score in (0, 100); see the module comment. */
export function trendScore(i: ScoreInput): number {
  const w = SCORE_WEIGHTS;
  const x =
    w.acceleration * Math.max(-Z_CLIP, Math.min(Z_CLIP, i.z)) +
    w.volume * Math.log((i.count + 1) / (i.typicalCount + 1)) +
    w.engagement * Math.log((Math.max(0, i.engagementPerPost) + 1) / (Math.max(0, i.typicalEngagement) + 1));
  return 100 * logistic(x / SCORE_TEMPERATURE);
}
