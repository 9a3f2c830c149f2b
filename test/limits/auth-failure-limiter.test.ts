/** Failed authentication is limited per client address: memory, and shared through real Redis. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { reasonOf } from "../../src/errors/to-connect.js";
import type { AuthFailureLimiter } from "../../src/limits/auth-failure-limiter.js";
import { createAuthFailureLimiter } from "../../src/limits/auth-failure-limiter.js";
import { createLimitsRedisClient } from "../../src/limits/redis-store.js";
import type { RedisServer } from "../harness/redis.js";
import { redisSkipReason, startRedis } from "../harness/redis.js";

const policy = { maxFailures: 3, windowSeconds: 60, blockSeconds: 120 };

async function blocked(l: AuthFailureLimiter, address: string, keyId?: string): Promise<ConnectError | undefined> {
  try {
    await l.check(address, keyId);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ConnectError);
    return err;
  }
}

describe("auth-failure limiter (memory)", () => {
  it("blocks an address after maxFailures failures, with 429 AUTH_RATE_LIMITED and Retry-After", async () => {
    const l = createAuthFailureLimiter({ policy });
    for (let i = 0; i < 3; i++) {
      assert.equal(await blocked(l, "10.0.0.1"), undefined, `allowed after ${i} failures`);
      await l.fail("10.0.0.1");
    }
    assert.equal(await blocked(l, "10.0.0.1"), undefined, "3 failures are still allowed");
    await l.fail("10.0.0.1");
    const err = await blocked(l, "10.0.0.1");
    assert.ok(err);
    assert.equal(err.code, Code.ResourceExhausted);
    assert.equal(reasonOf(err), "AUTH_RATE_LIMITED");
    const retry = Number(err.metadata.get("retry-after"));
    assert.ok(retry > 110 && retry <= 120, `retry-after ${retry}`);
    assert.equal(await blocked(l, "10.0.0.2"), undefined, "other addresses are unaffected");
  });

  it("counts each presented key id apart within one address", async () => {
    const l = createAuthFailureLimiter({ policy });
    for (let i = 0; i < 4; i++) await l.fail("10.0.0.1", "AAAAAAAAAAAA");
    assert.equal(reasonOf((await blocked(l, "10.0.0.1", "AAAAAAAAAAAA"))!), "AUTH_RATE_LIMITED");
    assert.equal(
      await blocked(l, "10.0.0.1", "BBBBBBBBBBBB"),
      undefined,
      "another key id from the same address is judged on its own",
    );
    assert.equal(await blocked(l, "10.0.0.1"), undefined, "so are presentations without an id");
  });
});

describe("auth-failure limiter (Redis)", { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());

  it("failures from one address are counted across instances", async () => {
    const c1 = createLimitsRedisClient(redis.url);
    const c2 = createLimitsRedisClient(redis.url);
    await Promise.all([c1.connect(), c2.connect()]);
    try {
      const a = createAuthFailureLimiter({ policy, redis: c1 });
      const b = createAuthFailureLimiter({ policy, redis: c2 });
      await Promise.all([a.fail("::1"), b.fail("::1"), a.fail("::1"), b.fail("::1")]);
      assert.equal(reasonOf((await blocked(a, "::1"))!), "AUTH_RATE_LIMITED");
      assert.equal(reasonOf((await blocked(b, "::1"))!), "AUTH_RATE_LIMITED");
    } finally {
      c1.disconnect();
      c2.disconnect();
    }
  });
});
