/**
 * The counter abstraction the enforcer talks to: a rate-limiter-flexible limiter for one limit
 * value, plus the two extra moves enforcement needs (give a point back, read without counting).
 * Every store (memory, SQLite, PostgreSQL, Redis) hands out Counters, so the enforcer and the
 * contract tests are the same for all of them.
 */

import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimiterRes } from "rate-limiter-flexible";

/** Which backend holds the counters. */
export type StoreKind = "memory" | "sqlite" | "postgres" | "redis";

/** Per-call options: a window length for this call (calendar months vary in length). */
export interface ConsumeOptions {
  /** Seconds the window lasts if this call opens it; the counter's own duration otherwise. */
  windowSeconds?: number;
}

/** One limit value in one store. */
export interface Counter {
  /** Largest number of points a window admits. */
  readonly points: number;
  /**
   * Takes one point. Resolves with the state after the call when admitted; rejects with a
   * RateLimiterRes when over the limit, or an Error when the store failed (and no insurance
   * could answer).
   */
  consume(key: string, options?: ConsumeOptions): Promise<RateLimiterRes>;
  /** Gives one point back (a call that was counted here but refused elsewhere). */
  refund(key: string, options?: ConsumeOptions): Promise<void>;
  /** The current window without counting, or null when no window is open. */
  peek(key: string): Promise<RateLimiterRes | null>;
}

/** A family of counters sharing one store and key prefix. */
export interface CounterStore {
  readonly kind: StoreKind;
  /** The counter admitting `points` per `durationSeconds` window; cached per pair. */
  counter(points: number, durationSeconds: number): Counter;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

/**
 * Refunds are skipped when the window closes within this many ms: a reward that lands after the
 * window rolled over would open the next window at -1, handing out a free call. Keeping one
 * extra point for under a second of a dying window is the harmless side of that race.
 */
export const REFUND_GUARD_MS = 1_000;

/** A Counter over a plain rate-limiter-flexible limiter. */
export class LimiterCounter implements Counter {
  constructor(
    readonly limiter: RateLimiterAbstract,
    readonly points: number,
  ) {}

  consume(key: string, options: ConsumeOptions = {}): Promise<RateLimiterRes> {
    return this.limiter.consume(key, 1, toLimiterOptions(options));
  }

  async refund(key: string, options: ConsumeOptions = {}): Promise<void> {
    await this.limiter.reward(key, 1, toLimiterOptions(options));
  }

  async peek(key: string): Promise<RateLimiterRes | null> {
    const res = await this.limiter.get(key);
    return res instanceof RateLimiterRes && res.msBeforeNext > 0 ? res : null;
  }
}

/** rate-limiter-flexible's option object for a consume. */
export function toLimiterOptions(options: ConsumeOptions): { customDuration?: number } {
  return options.windowSeconds === undefined ? {} : { customDuration: Math.max(1, Math.ceil(options.windowSeconds)) };
}

/** Caches one Counter per (points, duration) so calls with the same limit share counters. */
export class CounterCache {
  private readonly counters = new Map<string, Counter>();
  constructor(private readonly make: (points: number, durationSeconds: number) => Counter) {}

  get(points: number, durationSeconds: number): Counter {
    const id = `${points}/${durationSeconds}`;
    let c = this.counters.get(id);
    if (c === undefined) {
      c = this.make(points, durationSeconds);
      this.counters.set(id, c);
    }
    return c;
  }
}
