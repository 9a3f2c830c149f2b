/**
 * An account's usage as the portal shows it: the current period from the same report the usage
 * RPC serves (limiter counters plus usage rows, per account), and a daily series of the last N
 * UTC days with empty days as zeros so the chart has no gaps.
 */
import type { Caller, PlanId } from "../accounts/caller.js";
import { keyStatus } from "../accounts/key-status.js";
import type { AccountsStore, ApiKeyInfo } from "../accounts/store.js";
import { utcDay } from "../accounts/usage-args.js";
import { AppError } from "../errors/app-error.js";
import type { LimitEnforcer } from "../limits/enforcer.js";
import { OPERATIONS } from "../limits/operations.js";
import type { PlanCatalog } from "../limits/plan-catalog.js";
import { findPlan } from "../limits/plan-catalog.js";
import { calendarMonth } from "../limits/quota-period.js";
import type { UsageReport } from "../limits/usage-report.js";
import { usageReport } from "../limits/usage-report.js";
import type { PortalUsage } from "./portal-service.js";

const DAY_MS = 86_400_000;

/** What the usage view reads. */
export interface AccountUsageDeps {
  store: Pick<AccountsStore, "usageByAccount" | "accountDailyUsage">;
  enforcer: LimitEnforcer;
  catalog: PlanCatalog;
}

/** The newest key of `keys` that still authenticates at `now`, if any. */
export function newestUsableKey(keys: readonly ApiKeyInfo[], now: Date): ApiKeyInfo | undefined {
  let best: ApiKeyInfo | undefined;
  for (const k of keys) {
    const status = keyStatus(k, now);
    if (status !== "active" && status !== "rotating") continue;
    if (best === undefined || k.createdAt.getTime() > best.createdAt.getTime()) best = k;
  }
  return best;
}

/**
 * The caller whose limits describe the account: the account's plan (every key is on it) with the
 * overrides of its newest usable key, or none without a key. Counters are per account, so either
 * reads the same used count.
 */
export function accountCaller(accountId: string, plan: PlanId, keys: readonly ApiKeyInfo[], now: Date): Caller {
  const key = newestUsableKey(keys, now);
  if (key === undefined) return { keyId: "", accountId, plan, overrides: {} };
  return { keyId: key.id, accountId, plan, overrides: { ...key.overrides } };
}

/**
 * The period report for a plan the enforcer will not evaluate (no API access, or gone from the
 * catalog): the calendar month, counted from the usage rows, with the plan's quota if known.
 */
async function reportWithoutAccess(deps: AccountUsageDeps, caller: Caller, now: Date): Promise<UsageReport> {
  const month = calendarMonth(now);
  const rows = await deps.store.usageByAccount(caller.accountId, utcDay(month.start), utcDay(now));
  const counts = new Map<string, number>(OPERATIONS.map((op) => [op, 0]));
  for (const r of rows) counts.set(r.operation, (counts.get(r.operation) ?? 0) + r.count);
  const used = [...counts.values()].reduce((a, b) => a + b, 0);
  const limit = findPlan(deps.catalog, caller.plan)?.quota ?? null;
  return {
    plan: caller.plan,
    periodStart: month.start,
    periodEnd: month.end,
    used,
    limit,
    remaining: limit === null ? null : Math.max(0, limit - used),
    ratePerMinute: 0,
    operations: [...counts].map(([operation, count]) => ({ operation, count })),
  };
}

/** The usage view of `caller`'s account over its current period and the last `days` UTC days. */
export async function accountUsage(
  deps: AccountUsageDeps,
  caller: Caller,
  days: number,
  now: Date,
): Promise<PortalUsage> {
  let report: UsageReport;
  try {
    report = await usageReport(deps, caller);
  } catch (err) {
    if (!(err instanceof AppError) || (err.kind !== "PLAN_NO_API_ACCESS" && err.kind !== "PERMISSION_DENIED"))
      throw err;
    report = await reportWithoutAccess(deps, caller, now);
  }
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const firstDay = today - (days - 1) * DAY_MS;
  const rows = await deps.store.accountDailyUsage(
    caller.accountId,
    utcDay(new Date(firstDay)),
    utcDay(new Date(today)),
  );
  const perDay = new Map<string, number>();
  for (const r of rows) perDay.set(r.day, (perDay.get(r.day) ?? 0) + r.count);
  const daily = Array.from({ length: days }, (_, i) => {
    const day = utcDay(new Date(firstDay + i * DAY_MS));
    return { day, count: perDay.get(day) ?? 0 };
  });
  return {
    plan: report.plan as PlanId,
    periodStart: report.periodStart,
    periodEnd: report.periodEnd,
    used: report.used,
    limit: report.limit,
    remaining: report.remaining,
    ratePerMinute: report.ratePerMinute,
    perOperation: report.operations,
    daily,
  };
}
