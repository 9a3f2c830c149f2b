/**
 * Quota periods. Two kinds:
 * - `calendar_month`: the quota resets at 00:00 UTC on the first day of each month. The period
 *   is known from the clock alone, so every instance agrees on it without sharing state.
 * - rolling `Nh` / `Nd` (e.g. "7d"): a fixed window of that length that opens with the key's first
 *   counted call and closes N hours/days later; the next call after that opens a new window. This
 *   is what rate-limiter-flexible does with a `duration`, so the window lives in the counter store
 *   (its expiry) and is shared by every instance using that store.
 */

/** A parsed quota period. */
export type QuotaPeriod = { kind: "calendar_month" } | { kind: "rolling"; seconds: number; label: string };

/**
 * Longest rolling window accepted. The in-process limiters (RateLimiterMemory, also the Redis
 * insurance limiter) expire entries with setTimeout, which cannot wait longer than 2^31-1 ms
 * (~24.8 days); longer quotas must use calendar_month.
 */
export const MAX_ROLLING_SECONDS = 24 * 86_400;

/** Parses "calendar_month", "Nh" or "Nd". Throws Error with the rule on anything else. */
export function parseQuotaPeriod(text: string): QuotaPeriod {
  if (text === "calendar_month") return { kind: "calendar_month" };
  const m = /^([1-9]\d*)([hd])$/.exec(text);
  if (m === null)
    throw new Error(`quota_period must be "calendar_month" or a rolling window like "7d" or "1h", got "${text}"`);
  const seconds = Number(m[1]) * (m[2] === "d" ? 86_400 : 3_600);
  if (seconds > MAX_ROLLING_SECONDS) {
    throw new Error(`quota_period "${text}" is longer than 24 days; use "calendar_month" for longer quotas`);
  }
  return { kind: "rolling", seconds, label: text };
}

/** The catalog spelling of a period. */
export function formatQuotaPeriod(p: QuotaPeriod): string {
  return p.kind === "calendar_month" ? "calendar_month" : p.label;
}

/** Human wording for messages and the CLI ("per calendar month (UTC)", "per 7 days"). */
export function describeQuotaPeriod(p: QuotaPeriod): string {
  if (p.kind === "calendar_month") return "per calendar month (UTC)";
  const m = /^(\d+)([hd])$/.exec(p.label);
  const n = Number(m?.[1]);
  const unit = m?.[2] === "d" ? "day" : "hour";
  return n === 1 ? `per ${unit}` : `per ${n} ${unit}s`;
}

/** Start (inclusive) and end (exclusive) of the calendar month containing `now`, UTC. */
export function calendarMonth(now: Date): { start: Date; end: Date; id: string } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const start = new Date(Date.UTC(y, m, 1));
  const end = new Date(Date.UTC(y, m + 1, 1));
  return { start, end, id: start.toISOString().slice(0, 7) };
}
