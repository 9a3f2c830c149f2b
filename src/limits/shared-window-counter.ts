/**
 * Counters of different limits over one window per key. rate-limiter-flexible's memory limiter
 * keeps its own storage per instance, and an instance has one `points` value, so two keys of one
 * account with different limits (a per-key override) would each count in a window of their own
 * and together get more than either limit. Here one limiter per window length holds every count
 * (with no limit of its own), and each Counter compares the shared count with its own limit.
 * Redis, SQLite and PostgreSQL need none of this: their counts live in rows keyed by the key
 * alone, whatever limiter instance reads them.
 */

import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimiterRes } from "rate-limiter-flexible";
import type { ConsumeOptions, Counter } from "./counter.js";
import { toLimiterOptions } from "./counter.js";

/** The `points` a shared limiter is built with: large enough never to refuse by itself. */
export const UNBOUNDED_POINTS = Number.MAX_SAFE_INTEGER;

/** A Counter with limit `points` over a limiter shared by counters of every limit. */
export class SharedWindowCounter implements Counter {
  constructor(
    private readonly shared: RateLimiterAbstract,
    readonly points: number,
  ) {}

  /** Takes a point in the shared window; over this counter's limit it rejects, point kept (as rate-limiter-flexible does). */
  async consume(key: string, options: ConsumeOptions = {}): Promise<RateLimiterRes> {
    const res = this.limited(await this.shared.consume(key, 1, toLimiterOptions(options)));
    if (res.consumedPoints > this.points) throw res;
    return res;
  }

  async refund(key: string, options: ConsumeOptions = {}): Promise<void> {
    await this.shared.reward(key, 1, toLimiterOptions(options));
  }

  async peek(key: string): Promise<RateLimiterRes | null> {
    const res = await this.shared.get(key);
    return res instanceof RateLimiterRes && res.msBeforeNext > 0 ? this.limited(res) : null;
  }

  /** The shared state, with remaining points measured against this counter's limit. */
  private limited(res: RateLimiterRes): RateLimiterRes {
    return new RateLimiterRes(
      Math.max(0, this.points - res.consumedPoints),
      res.msBeforeNext,
      res.consumedPoints,
      res.isFirstInDuration,
    );
  }
}
