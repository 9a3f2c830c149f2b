/**
 * The delivery retry schedule: exponential steps with full jitter, capped, for a window after the
 * event was written. Operators can compress it (MONITORS_RETRY_* in config.ts), which is how the
 * outage tests run many retry steps in seconds instead of hours.
 */

/** The retry schedule. */
export interface RetryPolicy {
  /** Delay before the second attempt, ms; doubles per attempt. */
  baseDelayMs: number;
  /** Longest delay between attempts, ms. */
  maxDelayMs: number;
  /** How long after the event was written it is retried before being dead-lettered, ms. */
  retryWindowMs: number;
}

/** Production schedule: 10 s, 20 s, 40 s ... capped at 1 h, for 24 h. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  baseDelayMs: 10_000,
  maxDelayMs: 3600_000,
  retryWindowMs: 24 * 3600_000,
});

/** The exponential step before attempt `attempt + 1`, before jitter. */
export function retryStep(attempt: number, policy: RetryPolicy): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
}

/** Delay before attempt `attempt + 1`: drawn uniformly from [step/2, step]. */
export function retryDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = retryStep(attempt, policy);
  return Math.round(step / 2 + random() * (step / 2));
}
