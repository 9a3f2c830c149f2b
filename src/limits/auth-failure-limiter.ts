/**
 * Limits failed authentication per client address and presented key id, to stop key guessing.
 * The auth interceptor calls `check(address, keyId)` before looking at the key and
 * `fail(address, keyId)` after a key is refused; once an (address, key id) pair has failed
 * `maxFailures` times within `windowSeconds`, every call from that address presenting that key id
 * is answered 429 AUTH_RATE_LIMITED (with Retry-After) until `blockSeconds` have passed, whether
 * its secret is right or not, so a lucky guess cannot be confirmed. Other keys from the same
 * address (one NAT, one proxy) are judged on their own: guessing needs a known id (ids are shown
 * in key lists), and guessing an unknown id and secret together is beyond reach. Presentations
 * without a readable id (missing or malformed keys) share one bucket per address. Successful
 * authentications are never counted.
 *
 * With Redis the failures are shared by all instances (per-process insurance while it is down);
 * otherwise they are per process.
 */

import type { Redis } from "ioredis";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "../errors/app-error.js";
import { toConnectError } from "../errors/to-connect.js";
import { secondsUntil } from "./limit-exceeded.js";
import { applyHeaders, retryAfterHeader } from "./limit-headers.js";

/** Policy of the auth-failure limiter. */
export interface AuthFailurePolicy {
  /** Failures allowed per window before the address is blocked. */
  maxFailures: number;
  windowSeconds: number;
  /** How long a blocked address stays blocked. */
  blockSeconds: number;
}

/** Default: 10 failed attempts per 10 minutes, then 15 minutes of 429s. */
export const DEFAULT_AUTH_FAILURE_POLICY: Readonly<AuthFailurePolicy> = Object.freeze({
  maxFailures: 10,
  windowSeconds: 600,
  blockSeconds: 900,
});

/** The API the auth interceptor uses. */
export interface AuthFailureLimiter {
  readonly policy: Readonly<AuthFailurePolicy>;
  /**
   * Resolves when `address` may try to authenticate; rejects with a ConnectError
   * (ResourceExhausted, reason AUTH_RATE_LIMITED, Retry-After in its metadata) when it is blocked.
   */
  check(address: string, keyId?: string): Promise<void>;
  /** Records one failed authentication from `address` presenting `keyId`. Never throws for the limit itself. */
  fail(address: string, keyId?: string): Promise<void>;
}

/**
 * The bucket of an (address, key id) pair; an empty address (not set by the server) and an
 * absent id each share one. A key id is base62, so the separator cannot be forged into it.
 */
function keyOf(address: string, keyId: string | undefined): string {
  return `${address === "" ? "unknown" : address}|${keyId ?? "-"}`;
}

class FailureLimiter implements AuthFailureLimiter {
  constructor(
    readonly policy: Readonly<AuthFailurePolicy>,
    private readonly limiter: RateLimiterAbstract,
    private readonly clock: () => number,
  ) {}

  async check(address: string, keyId?: string): Promise<void> {
    let res: RateLimiterRes | null;
    try {
      res = await this.limiter.get(keyOf(address, keyId));
    } catch {
      return; // store and insurance both failed: do not lock everyone out
    }
    if (res === null || res.consumedPoints <= this.policy.maxFailures || res.msBeforeNext <= 0) return;
    const now = this.clock();
    const retry = secondsUntil(now + res.msBeforeNext, now);
    const err = toConnectError(
      new AppError(
        "AUTH_RATE_LIMITED",
        `too many failed authentication attempts with this key from this address; try again in ${retry} s`,
        {
          retry_after_seconds: String(retry),
        },
      ),
    );
    applyHeaders(err.metadata, retryAfterHeader(retry));
    throw err;
  }

  async fail(address: string, keyId?: string): Promise<void> {
    try {
      await this.limiter.consume(keyOf(address, keyId));
    } catch (rej) {
      // This failure crossed the limit: the block is now in place and check() reports it.
      if (rej instanceof RateLimiterRes) return;
      // Otherwise the store and its insurance failed: the failure goes uncounted rather than
      // turning the caller's 401 into a 500.
    }
  }
}

/** Options of {@link createAuthFailureLimiter}. */
export interface AuthFailureLimiterOptions {
  policy?: Partial<AuthFailurePolicy>;
  /** Share failures across instances through Redis; per-process memory when absent. */
  redis?: Redis;
  clock?: () => number;
}

/** Creates the limiter the auth interceptor calls. */
export function createAuthFailureLimiter(options: AuthFailureLimiterOptions = {}): AuthFailureLimiter {
  const policy = Object.freeze({ ...DEFAULT_AUTH_FAILURE_POLICY, ...options.policy });
  const opts = {
    keyPrefix: "ts:authfail",
    points: policy.maxFailures,
    duration: policy.windowSeconds,
    blockDuration: policy.blockSeconds,
  };
  const memory = new RateLimiterMemory(opts);
  const limiter =
    options.redis === undefined
      ? memory
      : new RateLimiterRedis({
          ...opts,
          storeClient: options.redis,
          rejectIfRedisNotReady: true,
          insuranceLimiter: memory,
        });
  return new FailureLimiter(policy, limiter, options.clock ?? Date.now);
}
