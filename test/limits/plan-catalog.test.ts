/** The shipped catalogs load as the spec's tables; invalid catalogs fail with a precise message. */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { effectiveLimits, liftingPlan } from "../../src/limits/effective-limits.js";
import { loadPlanCatalog, PlanCatalogError, parsePlanCatalog } from "../../src/limits/plan-catalog.js";
import { calendarMonth, parseQuotaPeriod } from "../../src/limits/quota-period.js";
import { tempDir } from "./fixtures.js";

const summary = (file: string) =>
  loadPlanCatalog(file).plans.map((p) => [
    p.id,
    p.apiAccess,
    p.quota,
    p.period.kind === "rolling" ? p.period.label : "month",
    p.ratePerMinute ?? `custom:${p.customRateDefault}`,
  ]);

describe("shipped catalogs", () => {
  it("Variant B is the spec's five tiers", () => {
    assert.deepEqual(summary("config/plans/variant-b.json"), [
      ["free", true, 3, "7d", 3],
      ["lite", true, 500, "month", 50],
      ["starter", true, 5000, "month", 50],
      ["pro", true, 15000, "month", 100],
      ["enterprise", true, null, "month", 1000],
    ]);
  });

  it("Variant A: Free without API access, Pro 10000/month at 60/min, Enterprise unlimited at a custom rate", () => {
    assert.deepEqual(summary("config/plans/variant-a.json"), [
      ["free", false, 100, "1h", "custom:null"],
      ["pro", true, 10000, "month", 60],
      ["enterprise", true, null, "month", "custom:600"],
    ]);
  });

  it("upgrade hints follow catalog order", () => {
    const b = loadPlanCatalog("config/plans/variant-b.json");
    const plan = (id: string) => b.plans.find((p) => p.id === id)!;
    assert.equal(liftingPlan(b, plan("lite"), "rate")?.id, "pro", "starter has the same rate as lite");
    assert.equal(liftingPlan(b, plan("lite"), "quota")?.id, "starter");
    assert.equal(liftingPlan(b, plan("pro"), "quota")?.id, "enterprise");
    assert.equal(liftingPlan(b, plan("enterprise"), "rate"), undefined);
    assert.deepEqual(effectiveLimits(plan("pro"), { ratePerMinute: 7 }).ratePerMinute, 7);
  });
});

describe("catalog validation", () => {
  const base = {
    id: "pro",
    name: "Pro",
    api_access: true,
    quota: 10,
    quota_period: "calendar_month",
    rate_per_minute: 5,
  };
  const bad = (plan: Record<string, unknown>, message: RegExp) =>
    assert.throws(
      () => parsePlanCatalog({ catalog: "x", plans: [plan] }, "f.json"),
      (e) => e instanceof PlanCatalogError && message.test(e.message),
    );

  it("names the file, the plan and the field", () => {
    bad(
      { ...base, id: "gold" },
      /^f\.json: plans\[0\]\.id must be one of free, lite, starter, pro, enterprise, got "gold"$/,
    );
    bad({ ...base, quota: 0 }, /plan "pro": quota must be a whole number >= 1 or null/);
    bad({ ...base, quota: "10" }, /plan "pro": quota must be/);
    bad({ ...base, quota_period: "monthly" }, /plan "pro": quota_period must be "calendar_month" or a rolling window/);
    bad({ ...base, quota_period: "30d" }, /longer than 24 days; use "calendar_month"/);
    bad({ ...base, rate_per_minute: null }, /custom_rate_default must be a whole number >= 1/);
    bad({ ...base, custom_rate_default: 5 }, /custom_rate_default is only allowed when rate_per_minute is null/);
    bad({ ...base, ratelimit: 5 }, /^f\.json: plans\[0\]: unknown field "ratelimit"$/);
    assert.throws(() => parsePlanCatalog({ catalog: "x", plans: [base, base] }), /plan "pro" appears twice/);
    assert.throws(() => parsePlanCatalog({ catalog: "x", plans: [] }), /"plans" must be a non-empty array/);
  });

  it("reports unreadable and malformed files with their path", () => {
    const dir = tempDir();
    const file = path.join(dir, "plans.json");
    writeFileSync(file, "{ not json");
    assert.throws(
      () => loadPlanCatalog(file),
      (e) => e instanceof PlanCatalogError && e.message.startsWith(`plan catalog ${file} is not valid JSON`),
    );
    assert.throws(
      () => loadPlanCatalog(path.join(dir, "missing.json")),
      /cannot read plan catalog .*missing\.json \(PLANS_FILE\)/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("quota periods", () => {
  it("parses rolling windows and calendar months", () => {
    assert.deepEqual(parseQuotaPeriod("7d"), { kind: "rolling", seconds: 604_800, label: "7d" });
    assert.deepEqual(parseQuotaPeriod("1h"), { kind: "rolling", seconds: 3_600, label: "1h" });
    assert.throws(() => parseQuotaPeriod("0d"));
    const m = calendarMonth(new Date("2028-02-29T23:59:59.999Z"));
    assert.equal(m.start.toISOString(), "2028-02-01T00:00:00.000Z");
    assert.equal(m.end.toISOString(), "2028-03-01T00:00:00.000Z");
    assert.equal(calendarMonth(new Date("2026-12-31T12:00:00Z")).end.toISOString(), "2027-01-01T00:00:00.000Z");
  });
});
