/**
 * Header values for every plan of both shipped catalogs, computed from limiter state: the state
 * after a key's first call of the period at a fixed instant, built by the real enforcer on
 * in-memory counters with an injected clock.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../../src/errors/app-error.js";
import { LimitEnforcer } from "../../src/limits/enforcer.js";
import { limitHeaders, retryAfterHeader } from "../../src/limits/limit-headers.js";
import { memoryCounterStore } from "../../src/limits/local-stores.js";
import type { PlanCatalog } from "../../src/limits/plan-catalog.js";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import { callerOn } from "./fixtures.js";

const NOW = Date.parse("2026-11-22T05:00:00Z");
const NOW_S = NOW / 1000;
const DEC_1_S = Date.parse("2026-12-01T00:00:00Z") / 1000;
const NOVEMBER_S = 30 * 86_400;

/** Expected headers after the first call: [rate, quota | null (unlimited), quota window s, quota reset s]. */
function expected(rate: number, quota: number | null, windowS = NOVEMBER_S, resetS = DEC_1_S): Record<string, string> {
  const h: Record<string, string> = {
    "x-ratelimit-limit": String(rate),
    "x-ratelimit-remaining": String(rate - 1),
    "x-ratelimit-reset": String(NOW_S + 60),
  };
  if (quota === null) {
    h["x-quota-limit"] = "unlimited";
    h["x-quota-remaining"] = "unlimited";
    h["ratelimit-policy"] = `"minute";q=${rate};w=60`;
    h["ratelimit"] = `"minute";r=${rate - 1};t=60`;
  } else {
    h["x-quota-limit"] = String(quota);
    h["x-quota-remaining"] = String(quota - 1);
    h["x-quota-reset"] = String(resetS);
    h["ratelimit-policy"] = `"minute";q=${rate};w=60, "quota";q=${quota};w=${windowS}`;
    h["ratelimit"] = `"minute";r=${rate - 1};t=60, "quota";r=${quota - 1};t=${resetS - NOW_S}`;
  }
  return h;
}

async function firstCallHeaders(catalog: PlanCatalog, plan: string): Promise<Record<string, string>> {
  const enforcer = new LimitEnforcer({
    catalog,
    rateStore: memoryCounterStore("r"),
    quotaStore: memoryCounterStore("q"),
    clock: () => NOW,
  });
  return limitHeaders(await enforcer.admit(callerOn(plan as "free")));
}

/** Rolling windows end msBeforeNext after the store's own clock; allow the test's few ms. */
function normaliseRolling(h: Record<string, string>): Record<string, string> {
  const out = { ...h };
  const reset = Number(out["x-quota-reset"]);
  assert.ok(Math.abs(reset - (NOW_S + 7 * 86_400)) <= 1, `x-quota-reset ${reset}`);
  out["x-quota-reset"] = String(NOW_S + 7 * 86_400);
  out["ratelimit"] = out["ratelimit"]!.replace(/"quota";r=(\d+);t=\d+/, `"quota";r=$1;t=${7 * 86_400}`);
  return out;
}

describe("limit headers, Variant B", () => {
  const catalog = loadPlanCatalog("config/plans/variant-b.json");
  it("free: 3/min, 3 per rolling 7 days", async () => {
    assert.deepEqual(
      normaliseRolling(await firstCallHeaders(catalog, "free")),
      expected(3, 3, 7 * 86_400, NOW_S + 7 * 86_400),
    );
  });
  it("lite: 50/min, 500 per month", async () => {
    assert.deepEqual(await firstCallHeaders(catalog, "lite"), expected(50, 500));
  });
  it("starter: 50/min, 5000 per month", async () => {
    assert.deepEqual(await firstCallHeaders(catalog, "starter"), expected(50, 5000));
  });
  it("pro: 100/min, 15000 per month", async () => {
    assert.deepEqual(await firstCallHeaders(catalog, "pro"), expected(100, 15_000));
  });
  it("enterprise: 1000/min, unlimited", async () => {
    assert.deepEqual(await firstCallHeaders(catalog, "enterprise"), expected(1000, null));
  });
});

describe("limit headers, Variant A", () => {
  const catalog = loadPlanCatalog("config/plans/variant-a.json");
  it("free: no API access, so no limit state and no headers (403)", async () => {
    await assert.rejects(
      firstCallHeaders(catalog, "free"),
      (e) => e instanceof AppError && e.kind === "PLAN_NO_API_ACCESS",
    );
  });
  it("pro: 60/min, 10000 per month", async () => {
    assert.deepEqual(await firstCallHeaders(catalog, "pro"), expected(60, 10_000));
  });
  it("enterprise: custom rate (catalog default 600/min), unlimited", async () => {
    assert.deepEqual(await firstCallHeaders(catalog, "enterprise"), expected(600, null));
  });
});

describe("limit headers at the edges", () => {
  it("remaining never goes below zero and Retry-After is whole seconds, at least 1", () => {
    const catalog = loadPlanCatalog("config/plans/variant-b.json");
    const h = limitHeaders({
      now: NOW,
      plan: catalog.plans[1]!,
      rate: { limit: 50, remaining: 0, resetAt: NOW + 1_500 },
      quota: {
        unlimited: false,
        limit: 500,
        used: 500,
        remaining: 0,
        periodStart: NOW - 1000,
        resetAt: NOW + 10,
        windowSeconds: NOVEMBER_S,
      },
    });
    assert.equal(h["x-ratelimit-remaining"], "0");
    assert.equal(h["x-ratelimit-reset"], String(NOW_S + 2));
    assert.equal(h["ratelimit"], `"minute";r=0;t=2, "quota";r=0;t=1`);
    assert.deepEqual(retryAfterHeader(0.2), { "retry-after": "1" });
    assert.deepEqual(retryAfterHeader(34), { "retry-after": "34" });
  });
});
