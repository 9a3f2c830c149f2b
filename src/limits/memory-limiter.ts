/**
 * RateLimiterMemory made safe for long windows. Its store expires each entry with setTimeout,
 * and Node fires a timeout longer than 2^31-1 ms (~24.8 days) after 1 ms instead (with a
 * TimeoutOverflowWarning), which would silently reset a monthly quota held in memory. Windows
 * are therefore capped at 24 days here; callers that need the true period end (calendar months)
 * compute it from the clock, not from the entry's expiry.
 */

import type { RateLimiterRes } from "rate-limiter-flexible";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { MAX_ROLLING_SECONDS } from "./quota-period.js";

/** Longest window an in-memory entry is given, seconds. */
export const MAX_MEMORY_WINDOW_SECONDS = MAX_ROLLING_SECONDS;

type MemoryOptions = ConstructorParameters<typeof RateLimiterMemory>[0];
type Options = { customDuration?: number } & Record<string, unknown>;

function clamp(options: Options | undefined): Options {
  const o = options ?? {};
  if (typeof o.customDuration === "number" && o.customDuration > MAX_MEMORY_WINDOW_SECONDS) {
    return { ...o, customDuration: MAX_MEMORY_WINDOW_SECONDS };
  }
  return o;
}

/** An in-process limiter whose windows never exceed {@link MAX_MEMORY_WINDOW_SECONDS}. */
export class MemoryLimiter extends RateLimiterMemory {
  constructor(opts: MemoryOptions) {
    super({ ...opts, duration: Math.min(opts.duration ?? 1, MAX_MEMORY_WINDOW_SECONDS) });
  }

  override consume(key: string | number, points = 1, options?: Options): Promise<RateLimiterRes> {
    return super.consume(key, points, clamp(options));
  }

  override penalty(key: string | number, points = 1, options?: Options): Promise<RateLimiterRes> {
    return super.penalty(key, points, clamp(options));
  }

  override reward(key: string | number, points = 1, options?: Options): Promise<RateLimiterRes> {
    return super.reward(key, points, clamp(options));
  }

  override set(key: string | number, points: number, secDuration: number): Promise<RateLimiterRes> {
    return super.set(key, points, Math.min(secDuration, MAX_MEMORY_WINDOW_SECONDS));
  }
}
