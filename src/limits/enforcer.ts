/**
 * Admission of one metered call: the per-minute window first, then the quota, so that a call
 * refused by either spends neither.
 *
 * Both counters are atomic increments in their store (a Lua script in Redis, one upsert in
 * SQLite/PostgreSQL, a synchronous update in memory), so N concurrent calls against L remaining
 * admit exactly L. A call that is refused gives back what it took: its own point in the counter
 * that refused it, and its per-minute point when the quota refuses it. Counters therefore count
 * admitted calls only (X-…-Remaining means "calls you can still make"), and the quota counter
 * agrees with the persisted usage rows.
 *
 * A call admitted here that then fails through the service's own fault (INTERNAL, UNAVAILABLE)
 * gets its quota point back through release(); its per-minute point stays spent, because the
 * per-minute window protects the service, retries of failing calls included.
 *
 * Both counters belong to the ACCOUNT (caller.accountId, the subscription), not to the key:
 * every key of an account draws on one per-minute window and one quota, so creating more keys
 * never buys more calls. A key's limit overrides still decide the limit its own calls are
 * admitted against (the shared count compared with that key's limit).
 */
import { RateLimiterRes } from "rate-limiter-flexible";
import type { Caller } from "../accounts/caller.js";
import { AppError } from "../errors/app-error.js";
import type { Counter, CounterStore } from "./counter.js";
import { REFUND_GUARD_MS } from "./counter.js";
import type { EffectiveLimits } from "./effective-limits.js";
import { effectiveLimits, plansWithAccess } from "./effective-limits.js";
import { LimitExceededError } from "./limit-exceeded.js";
import type { Plan, PlanCatalog } from "./plan-catalog.js";
import { findPlan } from "./plan-catalog.js";
import { calendarMonth } from "./quota-period.js";
import type { LimitSnapshot, QuotaState, RateState } from "./snapshot.js";

/** Per-minute window length, seconds. */
export const RATE_WINDOW_SECONDS = 60;

/** What the enforcer needs. */
export interface EnforcerDeps {
  catalog: PlanCatalog;
  /** Per-minute counters (memory, or Redis). */
  rateStore: CounterStore;
  /** Quota counters (SQLite, PostgreSQL, or Redis). */
  quotaStore: CounterStore;
  /** Epoch ms; injectable for tests. */
  clock?: () => number;
}

/** Where one account's quota counter lives for the period containing `now`. */
interface QuotaWindow {
  key: string;
  counterSeconds: number;
  /** Set for calendar months: the window must end exactly at the month's end. */
  windowSeconds: number | undefined;
  /** Known up front for calendar months; from the counter for rolling windows. */
  fixed: { start: number; end: number } | undefined;
  policySeconds: number;
}

function quotaWindow(accountId: string, limits: EffectiveLimits, now: number): QuotaWindow {
  const p = limits.period;
  if (p.kind === "calendar_month") {
    const m = calendarMonth(new Date(now));
    const start = m.start.getTime();
    const end = m.end.getTime();
    return {
      key: `${accountId}:${m.id}`,
      counterSeconds: 31 * 86_400,
      windowSeconds: (end - now) / 1000,
      fixed: { start, end },
      policySeconds: (end - start) / 1000,
    };
  }
  return {
    key: `${accountId}:${p.label}`,
    counterSeconds: p.seconds,
    windowSeconds: undefined,
    fixed: undefined,
    policySeconds: p.seconds,
  };
}

/** Wraps a store failure (an Error rejection, not a RateLimiterRes) as a 503. */
function storeUnavailable(err: unknown): AppError {
  return new AppError(
    "UNAVAILABLE",
    "usage limits cannot be checked right now; retry in a few seconds",
    {},
    { cause: err },
  );
}

async function refund(counter: Counter, key: string, res: RateLimiterRes, windowSeconds?: number): Promise<boolean> {
  if (res.msBeforeNext <= REFUND_GUARD_MS) return false;
  try {
    await counter.refund(key, windowSeconds === undefined ? {} : { windowSeconds });
    return true;
  } catch {
    return false; // the store is failing; the point stays taken, which errs on the safe side
  }
}

/** Decides, per call, whether a caller may proceed, and reports where the caller stands. */
export class LimitEnforcer {
  private readonly clock: () => number;

  constructor(private readonly deps: EnforcerDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** The catalog in force. */
  get catalog(): PlanCatalog {
    return this.deps.catalog;
  }

  /** The caller's plan; refuses keys whose plan is absent from the catalog or has no API access. */
  planOf(caller: Caller): Plan {
    const plan = findPlan(this.deps.catalog, caller.plan);
    if (plan === undefined) {
      throw new AppError(
        "PERMISSION_DENIED",
        `plan "${caller.plan}" is not offered by the plan catalog in force; ask for the key to be moved to another plan`,
        { plan: caller.plan },
      );
    }
    if (!plan.apiAccess) {
      const names = plansWithAccess(this.deps.catalog)
        .map((p) => p.name)
        .join(" or ");
      throw new AppError(
        "PLAN_NO_API_ACCESS",
        `the ${plan.name} plan has no API access; upgrade to ${names} to call the API`,
        { plan: plan.id },
      );
    }
    return plan;
  }

  /**
   * Counts one call of `caller` if both limits allow it and returns the state after it.
   * Throws LimitExceededError (429), AppError PLAN_NO_API_ACCESS / PERMISSION_DENIED (403), or
   * AppError UNAVAILABLE (503) when a store fails and no insurance answers.
   */
  async admit(caller: Caller): Promise<LimitSnapshot> {
    const plan = this.planOf(caller);
    const limits = effectiveLimits(plan, caller.overrides);
    const now = this.clock();
    const rate = this.deps.rateStore.counter(limits.ratePerMinute, RATE_WINDOW_SECONDS);

    let rateRes: RateLimiterRes;
    try {
      rateRes = await rate.consume(caller.accountId);
    } catch (rej) {
      if (!(rej instanceof RateLimiterRes)) throw storeUnavailable(rej);
      await refund(rate, caller.accountId, rej);
      const quota = await this.peekQuota(caller, limits, now);
      const snapshot = { now, plan, rate: rateState(limits, rej, now, 0), quota };
      // Both exhausted: the quota is the one to report, its reset is the one worth waiting for.
      const kind = !quota.unlimited && quota.remaining === 0 ? "QUOTA_EXCEEDED" : "RATE_LIMITED";
      throw new LimitExceededError(kind, snapshot, this.deps.catalog);
    }

    if (limits.quota === null) {
      return { now, plan, rate: rateState(limits, rateRes, now), quota: { unlimited: true } };
    }
    const w = quotaWindow(caller.accountId, limits, now);
    const quota = this.deps.quotaStore.counter(limits.quota, w.counterSeconds);
    let quotaRes: RateLimiterRes;
    try {
      quotaRes = await quota.consume(w.key, w.windowSeconds === undefined ? {} : { windowSeconds: w.windowSeconds });
    } catch (rej) {
      const gaveBack = await refund(rate, caller.accountId, rateRes);
      if (!(rej instanceof RateLimiterRes)) throw storeUnavailable(rej);
      await refund(quota, w.key, rej, w.windowSeconds);
      const rateNow = rateState(limits, rateRes, now, gaveBack ? rateRes.remainingPoints + 1 : undefined);
      const snapshot = { now, plan, rate: rateNow, quota: quotaState(limits.quota, w, rej, now, 0) };
      throw new LimitExceededError("QUOTA_EXCEEDED", snapshot, this.deps.catalog);
    }
    return { now, plan, rate: rateState(limits, rateRes, now), quota: quotaState(limits.quota, w, quotaRes, now) };
  }

  /**
   * Counts one more quota call of `caller`, with no per-minute point: a streamed operation
   * charged per block of what it sends (operations.ts STREAMED_UNITS) pays each block after the
   * first here, the stream itself having been admitted once. Throws LimitExceededError
   * (QUOTA_EXCEEDED) when the quota has no call left, AppError UNAVAILABLE when the store fails.
   */
  async admitMore(caller: Caller): Promise<void> {
    const plan = this.planOf(caller);
    const limits = effectiveLimits(plan, caller.overrides);
    if (limits.quota === null) return;
    const now = this.clock();
    const w = quotaWindow(caller.accountId, limits, now);
    const quota = this.deps.quotaStore.counter(limits.quota, w.counterSeconds);
    try {
      await quota.consume(w.key, w.windowSeconds === undefined ? {} : { windowSeconds: w.windowSeconds });
    } catch (rej) {
      if (!(rej instanceof RateLimiterRes)) throw storeUnavailable(rej);
      await refund(quota, w.key, rej, w.windowSeconds);
      const current = await this.snapshot(caller);
      const snapshot = { ...current, quota: quotaState(limits.quota, w, rej, now, 0) };
      throw new LimitExceededError("QUOTA_EXCEEDED", snapshot, this.deps.catalog);
    }
  }

  /**
   * Gives back the quota point admit() took for `caller` at `admittedAt` (the snapshot's `now`,
   * so the point goes back to the period it was taken from). The per-minute point is kept.
   * Skipped when that period has ended or ends within REFUND_GUARD_MS (a late give-back would
   * open the next period one call short); a store failure is thrown for the caller to log.
   */
  async release(caller: Caller, admittedAt: number): Promise<boolean> {
    const limits = effectiveLimits(this.planOf(caller), caller.overrides);
    if (limits.quota === null) return false;
    const w = quotaWindow(caller.accountId, limits, admittedAt);
    const quota = this.deps.quotaStore.counter(limits.quota, w.counterSeconds);
    const open = await quota.peek(w.key);
    const endsIn = w.fixed ? w.fixed.end - this.clock() : (open?.msBeforeNext ?? 0);
    if (open === null || open.consumedPoints <= 0 || endsIn <= REFUND_GUARD_MS) return false;
    await quota.refund(w.key, w.fixed ? { windowSeconds: (w.fixed.end - this.clock()) / 1000 } : {});
    return true;
  }

  /** Where the caller stands, without counting anything (usage RPC, CLI, refused calls). */
  async snapshot(caller: Caller): Promise<LimitSnapshot> {
    const plan = this.planOf(caller);
    const limits = effectiveLimits(plan, caller.overrides);
    const now = this.clock();
    const rate = this.deps.rateStore.counter(limits.ratePerMinute, RATE_WINDOW_SECONDS);
    let rateRes: RateLimiterRes | null;
    try {
      rateRes = await rate.peek(caller.accountId);
    } catch (err) {
      throw storeUnavailable(err);
    }
    const rateNow: RateState =
      rateRes === null
        ? { limit: limits.ratePerMinute, remaining: limits.ratePerMinute, resetAt: now + RATE_WINDOW_SECONDS * 1000 }
        : rateState(limits, rateRes, now);
    return { now, plan, rate: rateNow, quota: await this.peekQuota(caller, limits, now) };
  }

  private async peekQuota(caller: Caller, limits: EffectiveLimits, now: number): Promise<QuotaState> {
    if (limits.quota === null) return { unlimited: true };
    const w = quotaWindow(caller.accountId, limits, now);
    let res: RateLimiterRes | null;
    try {
      res = await this.deps.quotaStore.counter(limits.quota, w.counterSeconds).peek(w.key);
    } catch (err) {
      throw storeUnavailable(err);
    }
    if (res === null) {
      // No window open: a rolling window would open with the next call.
      const start = w.fixed?.start ?? now;
      const end = w.fixed?.end ?? now + w.policySeconds * 1000;
      return {
        unlimited: false,
        limit: limits.quota,
        used: 0,
        remaining: limits.quota,
        periodStart: start,
        resetAt: end,
        windowSeconds: w.policySeconds,
      };
    }
    return quotaState(limits.quota, w, res, now);
  }
}

function rateState(limits: EffectiveLimits, res: RateLimiterRes, now: number, remaining?: number): RateState {
  return {
    limit: limits.ratePerMinute,
    remaining: Math.min(limits.ratePerMinute, Math.max(0, remaining ?? limits.ratePerMinute - res.consumedPoints)),
    resetAt: now + Math.max(0, res.msBeforeNext),
  };
}

function quotaState(limit: number, w: QuotaWindow, res: RateLimiterRes, now: number, remaining?: number): QuotaState {
  const end = w.fixed?.end ?? now + Math.max(0, res.msBeforeNext);
  const start = w.fixed?.start ?? end - w.policySeconds * 1000;
  return {
    unlimited: false,
    limit,
    used: Math.min(limit, res.consumedPoints),
    remaining: Math.max(0, remaining ?? limit - res.consumedPoints),
    periodStart: start,
    resetAt: end,
    windowSeconds: w.policySeconds,
  };
}
