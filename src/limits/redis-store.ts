/**
 * Counters in Redis (REDIS_URL), shared by every instance: the increment and its expiry run in
 * one Lua script inside Redis, so concurrent calls from any number of processes are exact.
 * Each limiter has an insurance limiter (insurance-limiter.ts) that answers while Redis cannot;
 * the client is set up to fail fast (no offline queue, short command timeout) so an outage costs
 * a call at most one timeout instead of a hang.
 */
import { Redis } from "ioredis";
import type { RateLimiterRes } from "rate-limiter-flexible";
import { RateLimiterRedis } from "rate-limiter-flexible";
import type { ConsumeOptions, Counter, CounterStore } from "./counter.js";
import { CounterCache, toLimiterOptions } from "./counter.js";
import type { QuotaFailMode } from "./insurance-limiter.js";
import { InsuranceLimiter } from "./insurance-limiter.js";

/**
 * How long one Redis command may take before the insurance limiter answers instead, ms. Only a
 * hung Redis waits this long (a dead one refuses at once). Not much lower: on a saturated event
 * loop the timer can fire before an already-arrived reply is read.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** A Redis client configured for limiting: fails fast while disconnected, reconnects forever. */
export function createLimitsRedisClient(url: string, onError: (err: Error) => void = () => {}): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    lazyConnect: true,
  });
  client.on("error", onError);
  return client;
}

class RedisCounter implements Counter {
  constructor(
    private readonly client: Redis,
    private readonly limiter: RateLimiterRedis,
    private readonly insurance: InsuranceLimiter,
    readonly points: number,
  ) {}

  async consume(key: string, options: ConsumeOptions = {}): Promise<RateLimiterRes> {
    const opts = toLimiterOptions(options);
    if (this.client.status === "ready") {
      // Calls admitted during an outage join the shared count before this call is decided.
      // Should Redis fail right here, the penalty lands in the insurance limiter, which books
      // it as debt again.
      const debt = this.insurance.takeDebt(key);
      if (debt > 0) await this.limiter.penalty(key, debt, opts);
    }
    const res = await this.limiter.consume(key, 1, opts);
    if (!this.insurance.answered(res)) await this.insurance.mirror(key, res);
    return res;
  }

  async refund(key: string, options: ConsumeOptions = {}): Promise<void> {
    await this.limiter.reward(key, 1, toLimiterOptions(options));
  }

  async peek(key: string): Promise<RateLimiterRes | null> {
    const res = await this.limiter.get(key);
    return res !== null && res.msBeforeNext > 0 ? res : null;
  }
}

/** Options of {@link redisCounterStore}. */
export interface RedisStoreOptions {
  client: Redis;
  keyPrefix: string;
  /** null for per-minute windows (plain insurance); the quota policy for quota counters. */
  failMode: QuotaFailMode | null;
}

/** Counters in Redis with per-process insurance. Does not own the client (close it yourself). */
export function redisCounterStore(opts: RedisStoreOptions): CounterStore {
  const cache = new CounterCache((points, duration) => {
    const insurance = new InsuranceLimiter({ keyPrefix: opts.keyPrefix, points, duration }, opts.failMode);
    const limiter = new RateLimiterRedis({
      storeClient: opts.client,
      keyPrefix: opts.keyPrefix,
      points,
      duration,
      rejectIfRedisNotReady: true,
      insuranceLimiter: insurance,
    });
    return new RedisCounter(opts.client, limiter, insurance, points);
  });
  return {
    kind: "redis",
    counter: (points, duration) => cache.get(points, duration),
    close: async () => {},
  };
}
