/** Small builders shared by the limits tests: catalogs, callers, temp dirs, limits on real stores. */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Caller, LimitOverrides, PlanId } from "../../src/accounts/caller.js";
import type { Limits, LimitsConfig } from "../../src/limits/open-limits.js";
import { openLimits } from "../../src/limits/open-limits.js";
import type { PlanCatalog } from "../../src/limits/plan-catalog.js";
import { parsePlanCatalog } from "../../src/limits/plan-catalog.js";

/** A catalog with one plan per entry, in catalog-file spelling. */
export function catalogOf(plans: Record<string, unknown>[]): PlanCatalog {
  return parsePlanCatalog({ catalog: "test", plans }, "test catalog");
}

/** A Lite-like plan with the given limits (calendar month). */
export function litePlan(quota: number | null, rate: number): PlanCatalog {
  return catalogOf([
    { id: "lite", name: "Lite", api_access: true, quota, quota_period: "calendar_month", rate_per_minute: rate },
  ]);
}

/**
 * A fresh caller on `plan`: a new key of a new account. Limits count per account, so callers
 * made here never share counters; use keyOf to make another key of the same account.
 */
export function callerOn(plan: PlanId, overrides: LimitOverrides = {}): Caller {
  return { keyId: `key_${randomUUID().slice(0, 8)}`, accountId: `acct_${randomUUID().slice(0, 8)}`, plan, overrides };
}

/** Another key of `caller`'s account (same plan unless given), with its own overrides. */
export function keyOf(caller: Caller, overrides: LimitOverrides = {}, plan: PlanId = caller.plan): Caller {
  return { keyId: `key_${randomUUID().slice(0, 8)}`, accountId: caller.accountId, plan, overrides };
}

/** A temp data dir. */
export function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "threadsight-limits-"));
}

/** Limits on the embedded stores (memory + SQLite in `dataDir`) or Redis when `redisUrl` is set. */
export function limitsFor(
  catalog: PlanCatalog,
  cfg: Partial<LimitsConfig> & { dataDir: string },
  clock?: () => number,
): Promise<Limits> {
  const config: LimitsConfig = {
    plansFile: "(in test)",
    databaseUrl: undefined,
    redisUrl: undefined,
    quotaFailMode: "closed",
    ...cfg,
  };
  return openLimits(config, { catalog, ...(clock ? { clock } : {}) });
}
