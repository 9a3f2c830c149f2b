/**
 * Trending keywords: terms over-represented in the window against the previous window and a
 * background, by the log-odds ratio with an informative Dirichlet prior (Monroe, Colaresi and
 * Quinn 2008, "Fightin' Words"). With counts y (window, total n), y' (previous window, total n')
 * and prior a_w = A * pi_w (pi the background frequency, A the prior's total weight):
 *
 *   d_w   = ln((y_w + a_w) / (n + A - y_w - a_w)) - ln((y'_w + a_w) / (n' + A - y'_w - a_w))
 *   var_w ~ 1 / (y_w + a_w) + 1 / (y'_w + a_w)
 *   z_w   = d_w / sqrt(var_w)
 *
 * The prior shrinks rare words towards the background, so a word seen twice does not beat a
 * word whose rise is well supported; an empty previous window leaves the window compared with
 * the background alone.
 */

import { distinctForms } from "../../topics/inflection.js";

/** Options of {@link trendingKeywords}. */
export interface LogOddsOptions {
  /** Keywords returned. Default 5. */
  top?: number;
  /** Total weight of the prior, A. Default 500. */
  priorWeight?: number;
  /** A term needs at least this many occurrences in the window. Default 2. */
  minCount?: number;
  /**
   * A factor on each term's z before ranking (a positive number; the default is 1 for every
   * term): ListTrends passes the term's rarity in the corpus, see core/trends/rarity.ts.
   */
  weight?: (term: string) => number;
}

/** A term, its z-score, and the z times its weight (what the terms are ranked by). */
export interface KeywordScore {
  term: string;
  z: number;
  score: number;
}

function total(m: ReadonlyMap<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}

/**
 * Terms of `now` with a positive z against `previous`, given the `background` counts, highest
 * weighted z first; a plural beside its singular is left out (topics/inflection.ts).
 */
export function trendingKeywords(
  now: ReadonlyMap<string, number>,
  previous: ReadonlyMap<string, number>,
  background: ReadonlyMap<string, number>,
  opts: LogOddsOptions = {},
): KeywordScore[] {
  const top = opts.top ?? 5;
  const A = opts.priorWeight ?? 500;
  const minCount = opts.minCount ?? 2;
  const weight = opts.weight ?? (() => 1);
  const n = total(now);
  const np = total(previous);
  if (n === 0) return [];
  // The background is smoothed over the union vocabulary so every term has a positive prior.
  const vocab = new Set([...now.keys(), ...previous.keys(), ...background.keys()]);
  const bgTotal = total(background) + 0.5 * vocab.size;
  const scored: KeywordScore[] = [];
  for (const [term, y] of now) {
    if (y < minCount) continue;
    const a = (A * ((background.get(term) ?? 0) + 0.5)) / bgTotal;
    const yp = previous.get(term) ?? 0;
    const d = Math.log((y + a) / (n + A - y - a)) - Math.log((yp + a) / (np + A - yp - a));
    const z = d / Math.sqrt(1 / (y + a) + 1 / (yp + a));
    if (Number.isFinite(z) && z > 0) scored.push({ term, z, score: z * weight(term) });
  }
  scored.sort((x, y) => y.score - x.score || (x.term < y.term ? -1 : 1));
  return distinctForms(scored, top, (k) => k.term);
}
