/**
 * Wires the limits from configuration: the catalog, the counter stores, the enforcer and the
 * auth-failure limiter. The only place that decides which store holds which counter:
 *
 * | REDIS_URL | DATABASE_URL | per-minute windows | quota counters | auth failures |
 * |-----------|--------------|--------------------|----------------|---------------|
 * | unset     | unset        | process memory     | SQLite (data dir, limits.sqlite) | memory |
 * | unset     | set          | process memory     | PostgreSQL     | memory        |
 * | set       | any          | Redis (+ insurance)| Redis (+ insurance, QUOTA_FAIL_MODE) | Redis |
 *
 * Without Redis each instance has its own per-minute windows (quotas are still shared through
 * the database); run several instances with REDIS_URL.
 */
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { AuthFailureLimiter } from "./auth-failure-limiter.js";
import { createAuthFailureLimiter } from "./auth-failure-limiter.js";
import type { CounterStore } from "./counter.js";
import { LimitEnforcer } from "./enforcer.js";
import { memoryCounterStore, postgresCounterStore, sqliteCounterStore } from "./local-stores.js";
import type { PlanCatalog } from "./plan-catalog.js";
import { loadPlanCatalog } from "./plan-catalog.js";
import { createLimitsRedisClient, redisCounterStore } from "./redis-store.js";

/** Key prefixes in every store. */
export const RATE_PREFIX = "ts:rate";
export const QUOTA_PREFIX = "ts:quota";

/** The configuration the limits read. */
export type LimitsConfig = Pick<Config, "plansFile" | "dataDir" | "databaseUrl" | "redisUrl" | "quotaFailMode">;

/** Everything the server (and CLI) needs from the limits. */
export interface Limits {
  catalog: PlanCatalog;
  enforcer: LimitEnforcer;
  authFailures: AuthFailureLimiter;
  rateStore: CounterStore;
  quotaStore: CounterStore;
  /** The Redis client when REDIS_URL is set (readiness checks: `status === "ready"`). */
  redis: Redis | undefined;
  /** Closes stores and the Redis connection. */
  close(): Promise<void>;
}

/** Options that are not configuration. */
export interface OpenLimitsOptions {
  /** Told about Redis connection errors (the insurance limiters answer meanwhile). */
  onRedisError?: (err: Error) => void;
  /** How long to wait for Redis at start-up before starting on insurance, ms. */
  redisConnectTimeoutMs?: number;
  clock?: () => number;
  /** A catalog already loaded (tests); otherwise read from config.plansFile. */
  catalog?: PlanCatalog;
}

async function connectRedis(url: string, opts: OpenLimitsOptions): Promise<Redis> {
  const client = createLimitsRedisClient(url, opts.onRedisError);
  const timeout = opts.redisConnectTimeoutMs ?? 2_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeout} ms`)), timeout);
      }),
    ]);
  } catch (err) {
    // Start anyway: the insurance limiters answer and the client keeps reconnecting.
    opts.onRedisError?.(err as Error);
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/** Opens the limits described by `config`. */
export async function openLimits(config: LimitsConfig, opts: OpenLimitsOptions = {}): Promise<Limits> {
  const catalog = opts.catalog ?? loadPlanCatalog(config.plansFile);
  let redis: Redis | undefined;
  let rateStore: CounterStore;
  let quotaStore: CounterStore;
  if (config.redisUrl !== undefined) {
    redis = await connectRedis(config.redisUrl, opts);
    rateStore = redisCounterStore({ client: redis, keyPrefix: RATE_PREFIX, failMode: null });
    quotaStore = redisCounterStore({ client: redis, keyPrefix: QUOTA_PREFIX, failMode: config.quotaFailMode });
  } else {
    rateStore = memoryCounterStore(RATE_PREFIX);
    quotaStore =
      config.databaseUrl !== undefined
        ? await postgresCounterStore(config.databaseUrl, QUOTA_PREFIX)
        : sqliteCounterStore(config.dataDir, QUOTA_PREFIX);
  }
  const clock = opts.clock;
  const enforcer = new LimitEnforcer({ catalog, rateStore, quotaStore, ...(clock ? { clock } : {}) });
  const authFailures = createAuthFailureLimiter({ ...(redis ? { redis } : {}), ...(clock ? { clock } : {}) });
  return {
    catalog,
    enforcer,
    authFailures,
    rateStore,
    quotaStore,
    redis,
    close: async () => {
      await rateStore.close();
      await quotaStore.close();
      if (redis !== undefined) redis.disconnect();
    },
  };
}
