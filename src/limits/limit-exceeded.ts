/**
 * The 429 of the limits: an AppError (RATE_LIMITED or QUOTA_EXCEEDED) that also carries the
 * snapshot it was decided on, so the edge can add headers, RetryInfo and QuotaFailure. The
 * message says which limit, when it resets and what would lift it.
 */
import { AppError } from "../errors/app-error.js";
import { effectiveLimits, liftingPlan } from "./effective-limits.js";
import type { PlanCatalog } from "./plan-catalog.js";
import { describeQuotaPeriod } from "./quota-period.js";
import type { LimitSnapshot } from "./snapshot.js";

/** Which limit refused the call. */
export type LimitKind = "RATE_LIMITED" | "QUOTA_EXCEEDED";

/** Whole seconds from `now` to `at`, at least 1 (a Retry-After of 0 invites a busy loop). */
export function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

function humanDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.ceil(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.ceil(seconds / 3_600)} h`;
  return `${Math.ceil(seconds / 86_400)} days`;
}

function isoSeconds(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** A call refused by the per-minute limit or the quota. */
export class LimitExceededError extends AppError {
  /** Whole seconds until the refusing limit resets (the Retry-After value). */
  readonly retryAfterSeconds: number;

  constructor(
    readonly limit: LimitKind,
    readonly snapshot: LimitSnapshot,
    catalog: PlanCatalog,
  ) {
    const { plan, rate, quota, now } = snapshot;
    const resetAt = limit === "RATE_LIMITED" || quota.unlimited ? rate.resetAt : quota.resetAt;
    const retryAfter = secondsUntil(resetAt, now);
    const when = `resets at ${isoSeconds(resetAt)} (in ${humanDuration(retryAfter)})`;
    const lift = liftingPlan(catalog, plan, limit === "RATE_LIMITED" ? "rate" : "quota");
    let message: string;
    if (limit === "RATE_LIMITED") {
      const upgrade =
        lift === undefined
          ? "a higher per-key rate can be agreed with us"
          : `the ${lift.name} plan allows ${effectiveLimits(lift, {}).ratePerMinute} per minute`;
      message = `rate limit exceeded: ${rate.limit} requests per minute on the ${plan.name} plan; the window ${when}; ${upgrade}`;
    } else {
      const limitText = quota.unlimited ? "" : `${quota.limit} calls ${describeQuotaPeriod(plan.period)}`;
      let upgrade = "a larger per-key quota can be agreed with us";
      if (lift !== undefined) {
        const l = effectiveLimits(lift, {});
        upgrade =
          l.quota === null
            ? `the ${lift.name} plan has no quota`
            : `the ${lift.name} plan allows ${l.quota} calls ${describeQuotaPeriod(l.period)}`;
      }
      message = `quota exceeded: ${limitText} on the ${plan.name} plan; the quota ${when}; ${upgrade}`;
    }
    super(limit, message, {
      plan: plan.id,
      limit: limit === "RATE_LIMITED" ? "rate_per_minute" : "quota",
      reset_at: isoSeconds(resetAt),
      ...(lift === undefined ? {} : { upgrade_plan: lift.id }),
    });
    this.retryAfterSeconds = retryAfter;
  }
}
