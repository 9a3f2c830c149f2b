/**
 * Whether rollups may answer: their TOTAL cell must count exactly the posts the index holds
 * (a writer that bypassed the rollups, e.g. a bulk copy, leaves them short). Both counts are
 * cheap, but ListTrends asks several times per call, so one answer is shared for a second.
 */
import type { RollupCell } from "./rollup.js";

/** How long one freshness answer is reused. */
const TTL_MS = 1_000;

export class RollupFreshness {
  private cached: { at: number; answer: Promise<RollupCell | undefined> } | undefined;

  constructor(
    private readonly total: (signal?: AbortSignal) => Promise<RollupCell | undefined>,
    private readonly posts: (signal?: AbortSignal) => Promise<number>,
  ) {}

  /**
   * The TOTAL cell when rollups cover every post, else undefined. The shared check runs without
   * the caller's signal (one caller's abort must not fail the others); it is two small reads.
   */
  check(signal?: AbortSignal): Promise<RollupCell | undefined> {
    signal?.throwIfAborted();
    const now = Date.now();
    if (this.cached && now - this.cached.at < TTL_MS) return this.cached.answer;
    const answer = Promise.all([this.total(), this.posts()]).then(([total, count]) =>
      total && total.count === count ? total : undefined,
    );
    this.cached = { at: now, answer };
    // A failed check must not be reused by the next caller.
    answer.catch(() => {
      if (this.cached?.answer === answer) this.cached = undefined;
    });
    return answer;
  }

  /** Forgets the cached answer (after this process wrote). */
  invalidate(): void {
    this.cached = undefined;
  }
}
