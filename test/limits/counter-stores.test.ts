/** Runs the counter-store contract against memory, SQLite, real PostgreSQL and real Redis. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import { memoryCounterStore, postgresCounterStore, sqliteCounterStore } from "../../src/limits/local-stores.js";
import { createLimitsRedisClient, redisCounterStore } from "../../src/limits/redis-store.js";
import { startPostgres } from "../harness/postgres.js";
import type { RedisServer } from "../harness/redis.js";
import { redisSkipReason, startRedis } from "../harness/redis.js";
import { counterStoreContract } from "./counter-contract.js";

describe("memory counter store", () => {
  counterStoreContract({ open: async () => memoryCounterStore("t"), shared: false, persistent: false });
});

describe("SQLite counter store", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-limits-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  counterStoreContract({ open: async () => sqliteCounterStore(dir, "t"), shared: true, persistent: true });
});

const pg = await startPostgres();
describe("PostgreSQL counter store", { skip: pg.skip }, () => {
  after(() => pg.stop());
  counterStoreContract({ open: () => postgresCounterStore(pg.url!, "t"), shared: true, persistent: true });
});

describe("Redis counter store", { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());
  counterStoreContract({
    open: async () => {
      const client = createLimitsRedisClient(redis.url);
      await client.connect();
      const store = redisCounterStore({ client, keyPrefix: "t", failMode: "closed" });
      return { ...store, close: async () => client.disconnect() };
    },
    shared: true,
    persistent: true,
  });
});
