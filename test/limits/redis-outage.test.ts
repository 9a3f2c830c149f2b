/**
 * Redis killed (SIGKILL) in the middle of a test, then restarted from its fsynced AOF:
 * - the service keeps answering within the documented policy: per-minute limits and quotas of
 *   keys this process has seen continue in the insurance limiter from the last count; a key it
 *   has not seen is refused 503 under QUOTA_FAIL_MODE=closed and starts from zero under open;
 * - when Redis returns, calls admitted during the outage are added to the shared count, and
 *   every instance is back on the shared budget.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Caller } from "../../src/accounts/caller.js";
import { AppError } from "../../src/errors/app-error.js";
import { LimitExceededError } from "../../src/limits/limit-exceeded.js";
import type { Limits } from "../../src/limits/open-limits.js";
import type { RedisServer } from "../harness/redis.js";
import { redisSkipReason, startRedis } from "../harness/redis.js";
import { callerOn, limitsFor, litePlan, tempDir } from "./fixtures.js";

type Outcome = "ok" | "RATE_LIMITED" | "QUOTA_EXCEEDED" | "UNAVAILABLE";

async function call(limits: Limits, caller: Caller): Promise<Outcome> {
  const started = Date.now();
  try {
    await limits.enforcer.admit(caller);
    return "ok";
  } catch (err) {
    if (err instanceof LimitExceededError) return err.limit;
    if (err instanceof AppError && err.kind === "UNAVAILABLE") return "UNAVAILABLE";
    throw err;
  } finally {
    assert.ok(Date.now() - started < 1_500, "every call is answered promptly while Redis is down");
  }
}

async function calls(limits: Limits, caller: Caller, n: number): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let i = 0; i < n; i++) out.push(await call(limits, caller));
  return out;
}

function count(outcomes: Outcome[]): Partial<Record<Outcome, number>> {
  const c: Partial<Record<Outcome, number>> = {};
  for (const o of outcomes) c[o] = (c[o] ?? 0) + 1;
  return c;
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("Redis outage", { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  const dir = tempDir();
  const opened: Limits[] = [];
  before(async () => {
    redis = await startRedis({ persistent: true });
  });
  after(async () => {
    for (const l of opened) await l.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = async (failMode: "open" | "closed", quota = 20, rate = 1000) => {
    const l = await limitsFor(litePlan(quota, rate), { dataDir: dir, redisUrl: redis.url, quotaFailMode: failMode });
    opened.push(l);
    return l;
  };

  it("fail-closed: seen keys continue from their last count, unseen keys get 503, and the count is settled on recovery", async () => {
    const limits = await open("closed");
    const other = await open("closed"); // a second instance that sees nothing during the outage
    const seen = callerOn("lite");
    const unseen = callerOn("lite");
    assert.deepEqual(count(await calls(limits, seen, 10)), { ok: 10 });

    await redis.kill();
    await until("the client to notice", () => limits.redis?.status !== "ready");
    assert.deepEqual(
      count(await calls(limits, seen, 15)),
      { ok: 10, QUOTA_EXCEEDED: 5 },
      "the remaining 10 of 20, then refused",
    );
    assert.deepEqual(count(await calls(limits, unseen, 3)), { UNAVAILABLE: 3 });

    await redis.restart();
    await until("reconnection", () => limits.redis?.status === "ready" && other.redis?.status === "ready");
    // The 10 outage calls are added to Redis (which kept the first 10 in its AOF): 20 of 20.
    assert.deepEqual(count(await calls(limits, seen, 2)), { QUOTA_EXCEEDED: 2 });
    assert.deepEqual(
      count(await calls(other, seen, 2)),
      { QUOTA_EXCEEDED: 2 },
      "the other instance sees the settled count",
    );
    assert.deepEqual(count(await calls(limits, unseen, 2)), { ok: 2 }, "unseen keys are served again");
  });

  it("fail-open: an unseen key starts from zero in this process while Redis is down", async () => {
    const limits = await open("open", 5);
    const unseen = callerOn("lite");
    await redis.kill();
    await until("the client to notice", () => limits.redis?.status !== "ready");
    assert.deepEqual(count(await calls(limits, unseen, 7)), { ok: 5, QUOTA_EXCEEDED: 2 });
    await redis.restart();
    await until("reconnection", () => limits.redis?.status === "ready");
    assert.deepEqual(
      count(await calls(limits, unseen, 1)),
      { QUOTA_EXCEEDED: 1 },
      "the 5 outage calls were settled into Redis",
    );
  });

  it("per-minute limits hold in the insurance limiter while Redis is down", async () => {
    const limits = await open("closed", 1000, 4);
    const caller = callerOn("lite");
    assert.deepEqual(count(await calls(limits, caller, 1)), { ok: 1 });
    await redis.kill();
    await until("the client to notice", () => limits.redis?.status !== "ready");
    assert.deepEqual(
      count(await calls(limits, caller, 6)),
      { ok: 4, RATE_LIMITED: 2 },
      "a fresh per-process window of 4",
    );
    await redis.restart();
    await until("reconnection", () => limits.redis?.status === "ready");
    assert.deepEqual(
      count(await calls(limits, caller, 4)),
      { ok: 3, RATE_LIMITED: 1 },
      "back on Redis's window, which held 1 call",
    );
  });
});
