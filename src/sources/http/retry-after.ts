/**
 * Reading the `Retry-After` header (RFC 9110 section 10.2.3): either a number of seconds or an
 * HTTP date. Servers that send one say exactly when to come back, so it overrides our own
 * backoff schedule.
 */

/** Milliseconds to wait from `now`, or undefined when the header is absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Exponential backoff with full jitter: a random wait in [0, min(cap, base * 2^attempt)], so
 * clients that failed together do not retry together.
 */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(capMs, baseMs * 2 ** attempt));
}
