/**
 * The plan's monitor_deliveries_per_day, counted in the quota counter store (the same
 * rate-limiter-flexible counters as the call quota: SQLite, PostgreSQL or Redis), one counter per
 * account per UTC day. A send takes a point first and gives it back when the receiver did not
 * accept it, so the count is of deliveries that arrived and retries of a failing endpoint never
 * use up the day.
 *
 * At the limit nothing is dropped: the delivery stays queued until 00:00 UTC, when the next
 * day's budget opens (see DeliveryWorker), and ListDeliveries shows a "deferred" row saying so.
 */
import { RateLimiterRes } from "rate-limiter-flexible";
import type { PlanId } from "../accounts/caller.js";
import type { Allowance, AllowanceToken, DeliveryAllowance } from "../monitors/delivery-allowance.js";
import type { CounterStore } from "./counter.js";
import { REFUND_GUARD_MS } from "./counter.js";
import type { PlanCatalog } from "./plan-catalog.js";
import { findPlan } from "./plan-catalog.js";

/** Longest a counter lives, seconds: one day (each call sets its own window to the day's end). */
const DAY_SECONDS = 86_400;

/** Retry after a store failure, ms: the delivery waits, uncounted, and is tried again. */
export const STORE_RETRY_MS = 10_000;

/** What the daily limit needs. */
export interface DailyDeliveriesDeps {
  catalog: PlanCatalog;
  /** The quota counter store (limits/open-limits.ts). */
  store: CounterStore;
  /** The plan of an account, undefined when the account does not exist. */
  planOf: (accountId: string) => Promise<PlanId | undefined>;
  /** Told about store failures (the delivery is then retried after STORE_RETRY_MS). */
  onError?: (err: unknown) => void;
}

/** The UTC day containing `now`: its id (YYYY-MM-DD) and its end, epoch ms. */
export function utcDay(now: number): { id: string; end: number } {
  const d = new Date(now);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return { id: new Date(start).toISOString().slice(0, 10), end: start + DAY_SECONDS * 1000 };
}

function keyOf(accountId: string, dayId: string): string {
  return `deliveries:${accountId}:${dayId}`;
}

/** Creates the allowance the delivery workers consult. */
export function dailyDeliveries(deps: DailyDeliveriesDeps): DeliveryAllowance {
  const limitOf = async (accountId: string): Promise<{ limit: number | null; plan: string }> => {
    const id = await deps.planOf(accountId);
    const plan = id === undefined ? undefined : findPlan(deps.catalog, id);
    if (plan === undefined) return { limit: 0, plan: id ?? "unknown" };
    return { limit: plan.monitorDeliveriesPerDay, plan: plan.name };
  };
  return {
    async take(accountId: string, now: number): Promise<Allowance> {
      const day = utcDay(now);
      let limit: number | null;
      let plan: string;
      try {
        ({ limit, plan } = await limitOf(accountId));
      } catch (err) {
        deps.onError?.(err);
        return { ok: false, retryAt: now + STORE_RETRY_MS, reason: "" };
      }
      const token = { accountId, at: now };
      if (limit === null) return { ok: true, token };
      const held = `held until ${new Date(day.end).toISOString()} (00:00 UTC), when the next day's deliveries open; nothing is dropped`;
      if (limit === 0) {
        return {
          ok: false,
          retryAt: day.end,
          reason: `the ${plan} plan includes no monitor deliveries; ${held}. Upgrade, then redeliver to send sooner`,
        };
      }
      const counter = deps.store.counter(limit, DAY_SECONDS);
      const key = keyOf(accountId, day.id);
      const windowSeconds = (day.end - now) / 1000;
      try {
        await counter.consume(key, { windowSeconds });
        return { ok: true, token };
      } catch (rej) {
        if (!(rej instanceof RateLimiterRes)) {
          deps.onError?.(rej);
          return { ok: false, retryAt: now + STORE_RETRY_MS, reason: "" };
        }
        // Over the limit the counter kept the refused point; give it back so the count stays exact.
        if (rej.msBeforeNext > REFUND_GUARD_MS) await counter.refund(key, { windowSeconds }).catch(() => undefined);
        return {
          ok: false,
          retryAt: day.end,
          reason: `the ${plan} plan allows ${limit} monitor deliveries per UTC day and this account has used them; ${held}`,
        };
      }
    },
    async giveBack(token: AllowanceToken): Promise<void> {
      const { limit } = await limitOf(token.accountId);
      if (limit === null || limit === 0) return;
      // The key names its day, so a give-back landing after midnight cannot credit the new day.
      const day = utcDay(token.at);
      await deps.store
        .counter(limit, DAY_SECONDS)
        .refund(keyOf(token.accountId, day.id), { windowSeconds: Math.max(1, (day.end - token.at) / 1000) });
    },
  };
}
