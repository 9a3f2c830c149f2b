/**
 * Limit headers, computed from a snapshot. Sent on every metered response, success or error
 * (response headers; on errors also in the error's metadata, which gRPC sends as trailers and
 * Connect/REST as headers).
 *
 * - `X-RateLimit-Limit` / `-Remaining`: the per-minute window's limit and calls left in it.
 * - `X-RateLimit-Reset`: when the window ends, Unix epoch seconds (rounded up).
 * - `X-Quota-Limit` / `-Remaining`: the plan's quota and calls left in the period;
 *   both are the literal `unlimited` on a plan without quota, and then
 * - `X-Quota-Reset` (epoch seconds of the period end) is omitted.
 * - `RateLimit-Policy` / `RateLimit`: draft-ietf-httpapi-ratelimit-headers-10 (Structured Field
 *   lists): policy "minute" (q=limit;w=60) and, unless unlimited, policy "quota"
 *   (q=limit;w=period seconds; w of the current month for calendar months). `RateLimit` gives
 *   r=remaining;t=seconds until reset for each listed policy.
 * - `Retry-After` (whole seconds, >= 1) only on 429s: see retryAfterHeader.
 */
import type { LimitSnapshot } from "./snapshot.js";

/** Header names, lowercase as HTTP/2 and gRPC carry them. */
export const LIMIT_HEADER_NAMES = [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-quota-limit",
  "x-quota-remaining",
  "x-quota-reset",
  "ratelimit-policy",
  "ratelimit",
] as const;

/** The literal used for quota values of unlimited plans. */
export const UNLIMITED = "unlimited";

function epochSeconds(ms: number): string {
  return String(Math.ceil(ms / 1000));
}

function deltaSeconds(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** All limit headers for a snapshot (no Retry-After). */
export function limitHeaders(s: LimitSnapshot): Record<string, string> {
  const h: Record<string, string> = {
    "x-ratelimit-limit": String(s.rate.limit),
    "x-ratelimit-remaining": String(s.rate.remaining),
    "x-ratelimit-reset": epochSeconds(s.rate.resetAt),
  };
  const policy = [`"minute";q=${s.rate.limit};w=60`];
  const state = [`"minute";r=${s.rate.remaining};t=${deltaSeconds(s.rate.resetAt, s.now)}`];
  if (s.quota.unlimited) {
    h["x-quota-limit"] = UNLIMITED;
    h["x-quota-remaining"] = UNLIMITED;
  } else {
    h["x-quota-limit"] = String(s.quota.limit);
    h["x-quota-remaining"] = String(s.quota.remaining);
    h["x-quota-reset"] = epochSeconds(s.quota.resetAt);
    policy.push(`"quota";q=${s.quota.limit};w=${Math.round(s.quota.windowSeconds)}`);
    state.push(`"quota";r=${s.quota.remaining};t=${deltaSeconds(s.quota.resetAt, s.now)}`);
  }
  h["ratelimit-policy"] = policy.join(", ");
  h["ratelimit"] = state.join(", ");
  return h;
}

/** The Retry-After header of a 429 (whole seconds, at least 1). */
export function retryAfterHeader(seconds: number): Record<string, string> {
  return { "retry-after": String(Math.max(1, Math.ceil(seconds))) };
}

/** Sets every header of `from` on `to` (a Headers of a response or a ConnectError's metadata). */
export function applyHeaders(to: Headers, from: Record<string, string>): void {
  for (const [name, value] of Object.entries(from)) to.set(name, value);
}
