/**
 * Query texts for the load, so that the service's query-embedding cache is defeated partially
 * and steadily: each stream alternates a small hot set (cache hits after the first round) with
 * texts never sent before in the run (misses that must be embedded), for the whole run, instead
 * of going cold for one cycle and then warm for good.
 *
 * Texts are real forum questions (test/bench/search-queries.ts, the SemEval-2016 Qatar Living
 * set read from ../shared/data). When a run needs more than the set holds, the same questions
 * come back with a qualifier a searcher might add, which still makes a new cache key.
 */
import { loadBenchQueries } from "../bench/search-queries.js";

/** Qualifiers for the second and later passes over the question set. */
const QUALIFIERS = [
  "",
  " for a small business",
  " as a startup founder",
  " on a tight budget",
  " in my first year",
  " with a small team",
];

/** Hands out query texts; each is handed out once per run unless the feed wraps around. */
export class QueryFeed {
  private next = 0;
  private readonly base: readonly string[];
  constructor(base: readonly string[] = loadBenchQueries()) {
    if (base.length === 0) throw new Error("QueryFeed needs at least one query");
    this.base = base;
  }

  /** A text not handed out before (until all base x qualifier pairs are used; then it wraps). */
  fresh(): string {
    const i = this.next++;
    const q = this.base[i % this.base.length]!;
    return q + QUALIFIERS[Math.floor(i / this.base.length) % QUALIFIERS.length]!;
  }

  /**
   * `count` texts for one stream: every other one fresh, the rest cycling through `hot` texts
   * taken from the feed once, so about half of a stream's calls miss the cache all run long.
   */
  mixed(count: number, hot = 8): string[] {
    const hotSet = Array.from({ length: hot }, () => this.fresh());
    return Array.from({ length: count }, (_, i) => (i % 2 === 0 ? this.fresh() : hotSet[(i >> 1) % hot]!));
  }
}
