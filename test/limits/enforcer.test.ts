/**
 * The enforcer on real stores: exact admission under concurrency (memory + SQLite in one
 * process, and two limiter instances sharing a real Redis), neither limit spends the other,
 * persistence across a re-open, calendar-month and rolling periods, plans and overrides.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Caller } from "../../src/accounts/caller.js";
import { AppError } from "../../src/errors/app-error.js";
import type { LimitEnforcer } from "../../src/limits/enforcer.js";
import { LimitExceededError } from "../../src/limits/limit-exceeded.js";
import type { Limits } from "../../src/limits/open-limits.js";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import { startPostgres } from "../harness/postgres.js";
import type { RedisServer } from "../harness/redis.js";
import { redisSkipReason, startRedis } from "../harness/redis.js";
import { callerOn, catalogOf, keyOf, limitsFor, litePlan, tempDir } from "./fixtures.js";

type Outcome = "ok" | "RATE_LIMITED" | "QUOTA_EXCEEDED";

/** A plan whose quota is a rolling 7-day window (the window opens at the first call). */
const ROLLING = catalogOf([
  { id: "lite", name: "Lite", api_access: true, quota: 5, quota_period: "7d", rate_per_minute: 1000 },
]);

/**
 * release() on one store: a quota point given back after a service fault, for a calendar month
 * and a rolling window; the per-minute point stays spent; the full quota is usable again.
 */
function releaseContract(open: (catalog: ReturnType<typeof litePlan>) => Promise<Limits>): void {
  for (const [period, catalog] of [
    ["calendar month", litePlan(5, 1000)],
    ["rolling 7 days", ROLLING],
  ] as const) {
    it(`release gives the quota point back, not the per-minute point (${period})`, async () => {
      const l = await open(catalog);
      const caller = callerOn("lite");
      const admitted = await l.enforcer.admit(caller);
      await l.enforcer.admit(caller);
      assert.equal(await l.enforcer.release(caller, admitted.now), true);
      const s = await l.enforcer.snapshot(caller);
      assert.ok(!s.quota.unlimited);
      assert.equal(s.quota.used, 1);
      assert.equal(s.rate.remaining, 998, "per-minute points are not given back");
      assert.deepEqual(
        await admitMany([l.enforcer], caller, 6),
        { ok: 4, RATE_LIMITED: 0, QUOTA_EXCEEDED: 2 },
        "exactly the quota again",
      );
    });
  }

  it("release for an unlimited plan, or with nothing counted, gives nothing", async () => {
    const l = await open(litePlan(null, 1000));
    const unlimited = callerOn("lite");
    const admitted = await l.enforcer.admit(unlimited);
    assert.equal(await l.enforcer.release(unlimited, admitted.now), false);
    const l2 = await open(litePlan(5, 1000));
    const fresh = callerOn("lite");
    assert.equal(
      await l2.enforcer.release(fresh, Date.now()),
      false,
      "no window open: no credit for a call never counted",
    );
    const s = await l2.enforcer.snapshot(fresh);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.remaining, 5);
  });
}

/** Fires n admissions at once (round-robin over enforcers) and tallies the outcomes. */
async function admitMany(enforcers: LimitEnforcer[], caller: Caller, n: number): Promise<Record<Outcome, number>> {
  const tally: Record<Outcome, number> = { ok: 0, RATE_LIMITED: 0, QUOTA_EXCEEDED: 0 };
  const settled = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => enforcers[i % enforcers.length]!.admit(caller)),
  );
  for (const s of settled) {
    if (s.status === "fulfilled") tally.ok++;
    else if (s.reason instanceof LimitExceededError) tally[s.reason.limit]++;
    else throw s.reason;
  }
  return tally;
}

describe("enforcer on memory + SQLite", () => {
  const dir = tempDir();
  const opened: Limits[] = [];
  const open = async (catalog = litePlan(50, 1000), clock?: () => number) => {
    const l = await limitsFor(catalog, { dataDir: dir }, clock);
    opened.push(l);
    return l;
  };
  releaseContract((catalog) => open(catalog));
  after(async () => {
    for (const l of opened) await l.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("200 concurrent calls against a quota of 50 admit exactly 50", async () => {
    const { enforcer } = await open();
    const caller = callerOn("lite");
    assert.deepEqual(await admitMany([enforcer], caller, 200), { ok: 50, RATE_LIMITED: 0, QUOTA_EXCEEDED: 150 });
    const s = await enforcer.snapshot(caller);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.remaining, 0);
    assert.equal(s.quota.used, 50);
    assert.equal(s.rate.remaining, 1000 - 50, "quota refusals gave their per-minute point back");
  });

  it("200 concurrent calls against a per-minute limit of 50 admit exactly 50 and spend 50 of the quota", async () => {
    const { enforcer } = await open(litePlan(10_000, 50));
    const caller = callerOn("lite");
    assert.deepEqual(await admitMany([enforcer], caller, 200), { ok: 50, RATE_LIMITED: 150, QUOTA_EXCEEDED: 0 });
    const s = await enforcer.snapshot(caller);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.remaining, 10_000 - 50, "rate refusals never touched the quota");
    assert.equal(s.rate.remaining, 0);
  });

  it("a call refused by the quota does not spend the per-minute window, and vice versa", async () => {
    const { enforcer } = await open(litePlan(2, 5));
    const a = callerOn("lite");
    await enforcer.admit(a);
    await enforcer.admit(a);
    await assert.rejects(enforcer.admit(a), (e) => e instanceof LimitExceededError && e.limit === "QUOTA_EXCEEDED");
    assert.equal((await enforcer.snapshot(a)).rate.remaining, 3);

    const { enforcer: e2 } = await open(litePlan(100, 2));
    const b = callerOn("lite");
    await e2.admit(b);
    await e2.admit(b);
    await assert.rejects(e2.admit(b), (e) => e instanceof LimitExceededError && e.limit === "RATE_LIMITED");
    const s = await e2.snapshot(b);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.remaining, 98);
  });

  it("persistence: a half-spent quota is still half spent after the limiter is re-created", async () => {
    const caller = callerOn("lite");
    const first = await open();
    assert.deepEqual(await admitMany([first.enforcer], caller, 25), { ok: 25, RATE_LIMITED: 0, QUOTA_EXCEEDED: 0 });
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const second = await open();
    assert.deepEqual(await admitMany([second.enforcer], caller, 40), { ok: 25, RATE_LIMITED: 0, QUOTA_EXCEEDED: 15 });
  });

  it("monthly quotas reset at the start of the calendar month, UTC", async () => {
    let now = Date.parse("2026-11-30T23:59:50Z");
    const { enforcer } = await open(litePlan(2, 100), () => now);
    const caller = callerOn("lite");
    const s1 = await enforcer.admit(caller);
    assert.ok(!s1.quota.unlimited);
    assert.equal(s1.quota.periodStart, Date.parse("2026-11-01T00:00:00Z"));
    assert.equal(s1.quota.resetAt, Date.parse("2026-12-01T00:00:00Z"));
    assert.equal(s1.quota.windowSeconds, 30 * 86_400);
    await enforcer.admit(caller);
    const refused = await enforcer.admit(caller).catch((e: unknown) => e);
    assert.ok(refused instanceof LimitExceededError && refused.limit === "QUOTA_EXCEEDED");
    assert.equal(refused.retryAfterSeconds, 10);
    now = Date.parse("2026-12-01T00:00:01Z");
    const s2 = await enforcer.admit(caller);
    assert.ok(!s2.quota.unlimited);
    assert.equal(s2.quota.remaining, 1);
    assert.equal(s2.quota.resetAt, Date.parse("2027-01-01T00:00:00Z"));
  });

  it("a rolling 7-day quota opens its window at the first call", async () => {
    const { enforcer } = await open(loadPlanCatalog("config/plans/variant-b.json"));
    const caller = callerOn("free");
    const before = Date.now();
    const s = await enforcer.admit(caller);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.limit, 3);
    assert.equal(s.quota.remaining, 2);
    assert.ok(Math.abs(s.quota.resetAt - (before + 7 * 86_400_000)) < 2_000, "window ends 7 days after the first call");
    assert.equal(s.quota.resetAt - s.quota.periodStart, 7 * 86_400_000);
    await enforcer.admit(caller);
    await enforcer.admit(caller);
    await assert.rejects(enforcer.admit(caller), (e) => e instanceof LimitExceededError);
  });

  it("Variant A: Free has no API access (403), Enterprise uses the per-key rate or the catalog default", async () => {
    const { enforcer } = await open(loadPlanCatalog("config/plans/variant-a.json"));
    await assert.rejects(
      enforcer.admit(callerOn("free")),
      (e) => e instanceof AppError && e.kind === "PLAN_NO_API_ACCESS" && /Pro or Enterprise/.test(e.message),
    );
    await assert.rejects(
      enforcer.admit(callerOn("lite")),
      (e) => e instanceof AppError && e.kind === "PERMISSION_DENIED",
    );
    const dflt = await enforcer.admit(callerOn("enterprise"));
    assert.equal(dflt.rate.limit, 600);
    assert.deepEqual(dflt.quota, { unlimited: true });
    const custom = callerOn("enterprise", { ratePerMinute: 5 });
    assert.deepEqual(await admitMany([enforcer], custom, 8), { ok: 5, RATE_LIMITED: 3, QUOTA_EXCEEDED: 0 });
  });

  it("a quota override replaces the plan's quota", async () => {
    const { enforcer } = await open(litePlan(500, 1000));
    assert.deepEqual(await admitMany([enforcer], callerOn("lite", { quota: 4 }), 10), {
      ok: 4,
      RATE_LIMITED: 0,
      QUOTA_EXCEEDED: 6,
    });
    const unlimited = await enforcer.admit(callerOn("lite", { quota: null }));
    assert.deepEqual(unlimited.quota, { unlimited: true });
  });

  it("the 429 message names the limit, the reset and the plan that lifts it", async () => {
    const { enforcer } = await open(loadPlanCatalog("config/plans/variant-b.json"));
    const caller = callerOn("free");
    for (let i = 0; i < 3; i++) await enforcer.admit(caller);
    const err = await enforcer.admit(caller).catch((e: unknown) => e);
    assert.ok(err instanceof LimitExceededError);
    assert.match(
      err.message,
      /^quota exceeded: 3 calls per 7 days on the Free plan; the quota resets at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in 7 days\); the Lite plan allows 500 calls per calendar month \(UTC\)$/,
    );
    assert.equal(err.metadata.upgrade_plan, "lite");
  });

  it("limits count per account: two keys of one account share the quota, other accounts do not", async () => {
    const { enforcer } = await open(litePlan(5, 1000));
    const a = callerOn("lite");
    const b = keyOf(a);
    for (let i = 0; i < 3; i++) await enforcer.admit(a);
    assert.deepEqual(await admitMany([enforcer], b, 4), { ok: 2, RATE_LIMITED: 0, QUOTA_EXCEEDED: 2 });
    await assert.rejects(enforcer.admit(a), (e) => e instanceof LimitExceededError && e.limit === "QUOTA_EXCEEDED");
    for (const k of [a, b]) {
      const s = await enforcer.snapshot(k);
      assert.ok(!s.quota.unlimited);
      assert.equal(s.quota.used, 5, "every key of the account reports the account's count");
    }
    const stranger = callerOn("lite");
    assert.deepEqual(await admitMany([enforcer], stranger, 6), { ok: 5, RATE_LIMITED: 0, QUOTA_EXCEEDED: 1 });
  });

  it("limits count per account: the per-minute window is shared too, and a key's override applies to its own calls", async () => {
    const { enforcer } = await open(litePlan(5, 4));
    const a = callerOn("lite");
    const b = keyOf(a);
    await enforcer.admit(a);
    await enforcer.admit(a);
    await enforcer.admit(b);
    await enforcer.admit(b);
    await assert.rejects(enforcer.admit(b), (e) => e instanceof LimitExceededError && e.limit === "RATE_LIMITED");
    // A key with a larger quota override keeps going on the shared count; the others stay refused.
    const c = keyOf(a, { quota: 7, ratePerMinute: 4 });
    const d = keyOf(a, { quota: 7, ratePerMinute: 100 });
    await assert.rejects(enforcer.admit(c), (e) => e instanceof LimitExceededError && e.limit === "RATE_LIMITED");
    await enforcer.admit(d);
    const s = await enforcer.snapshot(d);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.used, 5);
    assert.equal(s.quota.remaining, 2);
    await assert.rejects(enforcer.admit(a), (e) => e instanceof LimitExceededError && e.limit === "QUOTA_EXCEEDED");
  });
});

describe("enforcer: one per-minute window per account whatever each key's limit (embedded memory window)", () => {
  const dir = tempDir();
  const opened: Limits[] = [];
  after(async () => {
    for (const l of opened) await l.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a key with a lower per-minute override sees the calls its account made through a key with a higher one", async () => {
    const l = await limitsFor(litePlan(1000, 100), { dataDir: dir });
    opened.push(l);
    const high = callerOn("lite");
    const low = keyOf(high, { ratePerMinute: 3 });
    for (let i = 0; i < 3; i++) await l.enforcer.admit(high);
    await assert.rejects(
      l.enforcer.admit(low),
      (e) => e instanceof LimitExceededError && e.limit === "RATE_LIMITED",
      "the account already made 3 calls this minute",
    );
    const s = await l.enforcer.snapshot(low);
    assert.equal(s.rate.limit, 3);
    assert.equal(s.rate.remaining, 0);
    const h = await l.enforcer.admit(high);
    assert.equal(
      h.rate.remaining,
      100 - 4,
      "the refused call gave its point back; the higher key counts on the same window",
    );
  });
});

describe("enforcer on a shared Redis", { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  const dir = tempDir();
  const opened: Limits[] = [];
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const l of opened) await l.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = async (catalog = litePlan(50, 1000)) => {
    const l = await limitsFor(catalog, { dataDir: dir, redisUrl: redis.url });
    opened.push(l);
    return l;
  };
  releaseContract((catalog) => open(catalog));

  it("200 concurrent calls through two limiter instances against a quota of 50 admit exactly 50", async () => {
    const [a, b] = [await open(), await open()];
    const caller = callerOn("lite");
    assert.deepEqual(await admitMany([a.enforcer, b.enforcer], caller, 200), {
      ok: 50,
      RATE_LIMITED: 0,
      QUOTA_EXCEEDED: 150,
    });
    const s = await b.enforcer.snapshot(caller);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.used, 50);
    assert.equal(s.rate.remaining, 950);
  });

  it("the same for a per-minute limit of 50", async () => {
    const [a, b] = [await open(litePlan(10_000, 50)), await open(litePlan(10_000, 50))];
    const caller = callerOn("lite");
    assert.deepEqual(await admitMany([a.enforcer, b.enforcer], caller, 200), {
      ok: 50,
      RATE_LIMITED: 150,
      QUOTA_EXCEEDED: 0,
    });
    const s = await a.enforcer.snapshot(caller);
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.remaining, 10_000 - 50);
  });

  it("persistence: limiters re-created on the same Redis continue the quota", async () => {
    const caller = callerOn("lite");
    const first = await open();
    await admitMany([first.enforcer], caller, 25);
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const second = await open();
    assert.deepEqual(await admitMany([second.enforcer], caller, 40), { ok: 25, RATE_LIMITED: 0, QUOTA_EXCEEDED: 15 });
  });
});

const pg = await startPostgres();
describe("enforcer with quotas in PostgreSQL", { skip: pg.skip }, () => {
  const dir = tempDir();
  const opened: Limits[] = [];
  after(async () => {
    for (const l of opened) await l.close();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  releaseContract(async (catalog) => {
    const l = await limitsFor(catalog, { dataDir: dir, databaseUrl: pg.url });
    opened.push(l);
    return l;
  });
});
