/**
 * Fault: PostgreSQL (DATABASE_URL: accounts, keys, usage) stops while the service runs, then
 * comes back (docs/RELIABILITY.md, "Faults").
 *
 * Expected behaviour, written before the test, for the scale-out deployment (DATABASE_URL and
 * REDIS_URL, quotas in Redis):
 * - Authentication fails closed. A key whose record is not in the key cache gets 503
 *   UNAVAILABLE (BACKEND_UNAVAILABLE) over REST and gRPC: not 401 (the key may be valid) and
 *   never a pass. A malformed key is still 401: it never needs the store.
 * - A valid key looked up in the last 5 s (the key cache's TTL, the same window in which a
 *   revocation made by another instance becomes visible) keeps working; once its entry
 *   expires it gets 503 like any other key.
 * - Health: `threadsight.accounts` and the overall status go NOT_SERVING within one poll;
 *   /readyz answers 503.
 * - Usage metering: a call served during the outage is counted by the limiter as usual, and
 *   its usage row is queued in memory (the write never reached the database) and written when
 *   PostgreSQL returns. Afterwards the usage table holds every successful call exactly once:
 *   nothing lost, nothing counted twice, refused calls not counted.
 * - PostgreSQL restarted on the same data: without restarting Threadsight, every key works
 *   again and health returns to SERVING.
 * With DATABASE_URL but no REDIS_URL the quota counters live in PostgreSQL too, so during the
 * outage even a cached key is refused 503 (its quota cannot be checked) and nothing is
 * counted; the rest is the same.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { Health, HealthCheckResponse_ServingStatus as Serving } from "../../gen/grpc/health/v1/health_pb.js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { utcDay } from "../../src/accounts/usage-args.js";
import { callUnary, callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import type { PostgresDatabase, PostgresUnavailable } from "../harness/postgres.js";
import { startPostgres } from "../harness/postgres.js";
import type { RedisServer } from "../harness/redis.js";
import { redisSkipReason, startRedis } from "../harness/redis.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

const pg: PostgresDatabase | PostgresUnavailable = await startPostgres();
const db: PostgresDatabase | undefined = pg.skip === undefined ? pg : undefined;
const skip =
  pg.skip ??
  (db?.stopServer === undefined ? "PostgreSQL from DATABASE_URL_TEST cannot be stopped by the test" : corporaSkip());

// One sample index for both deployments (each service opens it in turn, never together).
let seeded: Promise<string> | undefined;
function seededDir(): Promise<string> {
  seeded ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-pg-outage-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dir }, [{ file: "reddit_top2013/raw_csv/startups.csv", limit: 40 }]);
    return dir;
  })();
  return seeded;
}

/** Key cache TTL of the key service (src/accounts/key-service.ts default). */
const KEY_CACHE_MS = 5_000;

for (const withRedis of [true, false]) {
  const deployment = withRedis ? "DATABASE_URL + REDIS_URL" : "DATABASE_URL only";
  describe(`PostgreSQL unreachable while the service runs (${deployment})`, {
    skip: skip || (withRedis ? redisSkipReason() : undefined) || undefined,
    timeout: 180_000,
  }, () => {
    let redis: RedisServer | undefined;
    let svc: RunningService;
    let search: grpc.Client;
    let health: grpc.Client;
    const keys: Record<"warm" | "cold", { id: string; secret: string }> = {
      warm: { id: "", secret: "" },
      cold: { id: "", secret: "" },
    };
    const served: Record<string, number> = {};
    before(async () => {
      const dataDir = await seededDir();
      const url = await db!.createDatabase();
      redis = withRedis ? await startRedis() : undefined;
      svc = await startService({ dataDir, env: { DATABASE_URL: url, ...(redis ? { REDIS_URL: redis.url } : {}) } });
      for (const which of ["warm", "cold"] as const) {
        const created = await svc.service.keys.createKey({ accountName: `outage-${which}`, plan: "pro", name: which });
        keys[which] = { id: created.info.id, secret: created.key };
      }
      search = createGrpcJsClient(SearchService, svc.address);
      health = createGrpcJsClient(Health, svc.address);
    });
    after(async () => {
      search?.close();
      health?.close();
      await svc?.stop();
      await redis?.stop();
    });

    /** One SemanticSearch over REST: status and error reason; successes are tallied per key. */
    const viaRest = async (
      secret: string,
      query = "finding a cofounder",
    ): Promise<{ status: number; reason: string }> => {
      const res = await fetch(`${svc.url}/api/v1/search/semantic`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ query, limit: 3 }),
      });
      const body = (await res.json()) as { error?: { reason: string } };
      if (res.status === 200) served[secret] = (served[secret] ?? 0) + 1;
      return { status: res.status, reason: body.error?.reason ?? "" };
    };
    const viaGrpc = async (secret: string): Promise<string> => {
      const out = await callUnaryWithMetadata(
        search,
        SearchService.method.semanticSearch,
        { query: "pricing a product", limit: 3 },
        { authorization: `Bearer ${secret}` },
      );
      if (out.error === undefined) served[secret] = (served[secret] ?? 0) + 1;
      return out.error === undefined ? "OK" : grpc.status[out.error.code]!;
    };
    const status = async (service: string): Promise<string> =>
      Serving[(await callUnary(health, Health.method.check, { service })).status]!;
    const until = async (what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };

    test("fails closed with 503 while down, recovers without a restart, usage counted once", async (t) => {
      assert.equal((await viaRest(keys.warm.secret)).status, 200);
      const warmLoadedAt = Date.now();
      assert.equal(await status("threadsight.accounts"), "SERVING");

      await db!.stopServer!();
      const stoppedAt = Date.now();

      // Inside the cache window the warm key is still authenticated; with quotas in Redis it is
      // served and its usage row queued, with quotas in PostgreSQL admission refuses it.
      if (Date.now() - warmLoadedAt < KEY_CACHE_MS - 1_000) {
        const warm = await viaRest(keys.warm.secret, "raising money");
        if (withRedis) {
          assert.equal(
            warm.status,
            200,
            `a cached valid key keeps working: ${JSON.stringify(warm)}\n${svc.logs
              .filter((l) => l.includes("rejected") || /"level":[456]0/.test(l))
              .slice(-6)
              .join("\n")}`,
          );
          assert.equal(await viaGrpc(keys.warm.secret), "OK");
        } else {
          assert.deepEqual(warm, { status: 503, reason: "BACKEND_UNAVAILABLE" }, "its quota cannot be checked");
          assert.equal(await viaGrpc(keys.warm.secret), "UNAVAILABLE");
        }
        const usage = await fetch(`${svc.url}/api/v1/usage`, {
          headers: { authorization: `Bearer ${keys.warm.secret}` },
        });
        assert.equal(usage.status, 503, "the usage report needs the store: 503, not 500");
      } else {
        t.diagnostic(`stopping PostgreSQL took ${stoppedAt - warmLoadedAt} ms; the cache-window check was skipped`);
      }

      // A key never looked up cannot be checked: 503, not 401, never a pass.
      assert.deepEqual(await viaRest(keys.cold.secret), { status: 503, reason: "BACKEND_UNAVAILABLE" });
      assert.equal(await viaGrpc(keys.cold.secret), "UNAVAILABLE");
      const wrongSecret = `${keys.cold.secret.slice(0, -4)}${keys.cold.secret.endsWith("zzzz") ? "yyyy" : "zzzz"}`;
      assert.equal(
        (await viaRest(wrongSecret)).status,
        503,
        "a wrong secret cannot be told from a valid one while down",
      );
      assert.equal((await viaRest("not-a-key")).status, 401, "a malformed key needs no store and stays 401");

      // Once the warm key's entry expires it is refused like the rest.
      await new Promise((r) => setTimeout(r, Math.max(0, warmLoadedAt + KEY_CACHE_MS + 200 - Date.now())));
      assert.deepEqual(await viaRest(keys.warm.secret), { status: 503, reason: "BACKEND_UNAVAILABLE" });
      assert.equal(await viaGrpc(keys.warm.secret), "UNAVAILABLE");

      await until(
        "threadsight.accounts NOT_SERVING",
        async () => (await status("threadsight.accounts")) === "NOT_SERVING",
      );
      assert.equal(await status(""), "NOT_SERVING");
      assert.equal((await fetch(`${svc.url}/readyz`)).status, 503);

      await db!.startServer!();
      t.diagnostic(`PostgreSQL was down ${Date.now() - stoppedAt} ms`);
      await until("the cold key works again", async () => (await viaRest(keys.cold.secret)).status === 200);
      assert.equal((await viaRest(keys.warm.secret)).status, 200);
      assert.equal(await viaGrpc(keys.cold.secret), "OK");
      await until("threadsight.accounts SERVING", async () => (await status("threadsight.accounts")) === "SERVING");
      assert.equal(await status(""), "SERVING");
      assert.equal((await fetch(`${svc.url}/readyz`)).status, 200);
      const usage = await fetch(`${svc.url}/api/v1/usage`, {
        headers: { authorization: `Bearer ${keys.warm.secret}` },
      });
      assert.equal(usage.status, 200);

      // Every served call is in the usage table exactly once (queued rows included).
      const day = utcDay(new Date());
      for (const which of ["warm", "cold"] as const) {
        const { id, secret } = keys[which];
        await until(`usage of the ${which} key written`, async () => {
          const rows = await svc.service.accounts.usageBetween(id, day, day);
          return rows.reduce((sum, r) => sum + r.count, 0) >= (served[secret] ?? 0);
        });
        const rows = await svc.service.accounts.usageBetween(id, day, day);
        assert.equal(
          rows.reduce((sum, r) => sum + r.count, 0),
          served[secret],
          `usage of the ${which} key equals its served calls`,
        );
      }
      t.diagnostic(`served calls: warm ${served[keys.warm.secret]}, cold ${served[keys.cold.secret]}`);
    });
  });
}

after(async () => {
  await pg.stop();
  if (seeded !== undefined) await rm(await seeded, { recursive: true, force: true });
});
