/**
 * A caller's usage for its current quota period: the limiter's counters for used/remaining (the
 * numbers enforcement acts on) and the persisted per-day rows for the per-operation split.
 * Shared by the usage RPC, `threadsight usage` and the portal, so all say the same thing.
 *
 * Quotas count per account (every key of an account shares them), so the rows read are those of
 * every key of the caller's account; used and the per-operation counts then describe the same
 * calls.
 *
 * Periods: a calendar month (UTC) for monthly quotas; for rolling windows the open window
 * (start = first counted call), or, when none is open, the window the next call would open.
 * Unlimited plans report the current calendar month and count `used` from the usage rows.
 * Rows are per UTC day, so for a rolling window the per-operation counts cover whole days from
 * the day the window opened.
 */
import type { Caller } from "../accounts/caller.js";
import type { AccountsStore } from "../accounts/store.js";
import { StoreUnavailableError } from "../accounts/store-unavailable.js";
import { utcDay } from "../accounts/usage-args.js";
import { effectiveLimits } from "./effective-limits.js";
import type { LimitEnforcer } from "./enforcer.js";
import { OPERATIONS } from "./operations.js";
import { calendarMonth } from "./quota-period.js";

/** Where a caller's account stands in its current period. */
export interface UsageReport {
  plan: string;
  periodStart: Date;
  /** Exclusive; also when the quota resets. */
  periodEnd: Date;
  used: number;
  /** null when unlimited. */
  limit: number | null;
  /** null when unlimited. */
  remaining: number | null;
  ratePerMinute: number;
  /** Every operation, zero included, in OPERATIONS order; then any other recorded names. */
  operations: { operation: string; count: number }[];
}

/** What a usage report reads. */
export interface UsageReportDeps {
  enforcer: LimitEnforcer;
  store: Pick<AccountsStore, "usageByAccount">;
}

/** Builds the report for `caller` without counting anything. */
export async function usageReport(deps: UsageReportDeps, caller: Caller): Promise<UsageReport> {
  const snap = await deps.enforcer.snapshot(caller);
  const limits = effectiveLimits(snap.plan, caller.overrides);
  let start: number;
  let end: number;
  if (snap.quota.unlimited) {
    const m = calendarMonth(new Date(snap.now));
    start = m.start.getTime();
    end = m.end.getTime();
  } else {
    start = snap.quota.periodStart;
    end = snap.quota.resetAt;
  }
  const lastDay = utcDay(new Date(Math.min(snap.now, end - 1)));
  const rows = await deps.store
    .usageByAccount(caller.accountId, utcDay(new Date(start)), lastDay)
    .catch((err: unknown) => {
      // An unreachable accounts store is a 503 ("retry shortly"), not an internal error.
      throw new StoreUnavailableError("the accounts store is unreachable", { cause: err });
    });
  const counts = new Map<string, number>(OPERATIONS.map((op) => [op, 0]));
  for (const row of rows) counts.set(row.operation, (counts.get(row.operation) ?? 0) + row.count);
  const rowTotal = [...counts.values()].reduce((a, b) => a + b, 0);
  return {
    plan: snap.plan.id,
    periodStart: new Date(start),
    periodEnd: new Date(end),
    used: snap.quota.unlimited ? rowTotal : snap.quota.used,
    limit: snap.quota.unlimited ? null : snap.quota.limit,
    remaining: snap.quota.unlimited ? null : snap.quota.remaining,
    ratePerMinute: limits.ratePerMinute,
    operations: [...counts].map(([operation, count]) => ({ operation, count })),
  };
}
