/**
 * The limits that apply to one key: its plan's, with the key's overrides (Enterprise "custom")
 * laid over them. Also which plan would lift a limit, for the 429 message.
 */
import type { LimitOverrides } from "../accounts/caller.js";
import type { Plan, PlanCatalog } from "./plan-catalog.js";
import type { QuotaPeriod } from "./quota-period.js";

/** What the enforcer applies to a key. */
export interface EffectiveLimits {
  ratePerMinute: number;
  /** null = unlimited. */
  quota: number | null;
  period: QuotaPeriod;
}

/**
 * The plan's limits with the key's overrides applied. A custom-rate plan without an override
 * uses the catalog's custom_rate_default; a plan without API access has no meaningful limits and
 * yields rate 0 (the enforcer refuses it before asking).
 */
export function effectiveLimits(plan: Plan, overrides: LimitOverrides): EffectiveLimits {
  const rate = overrides.ratePerMinute ?? plan.ratePerMinute ?? plan.customRateDefault ?? 0;
  const quota = overrides.quota === undefined ? plan.quota : overrides.quota;
  return { ratePerMinute: rate, quota, period: plan.period };
}

/**
 * The first plan after `plan` in catalog order that has API access and a larger limit of the
 * given kind, or undefined when none does (then only a per-key override can lift it).
 */
export function liftingPlan(catalog: PlanCatalog, plan: Plan, kind: "rate" | "quota"): Plan | undefined {
  const index = catalog.plans.findIndex((p) => p.id === plan.id);
  const current = effectiveLimits(plan, {});
  return catalog.plans.slice(index + 1).find((p) => {
    if (!p.apiAccess) return false;
    const next = effectiveLimits(p, {});
    if (kind === "rate") return next.ratePerMinute > current.ratePerMinute;
    return current.quota !== null && (next.quota === null || next.quota > current.quota);
  });
}

/** The plans that can call the API, for the 403 message. */
export function plansWithAccess(catalog: PlanCatalog): Plan[] {
  return catalog.plans.filter((p) => p.apiAccess);
}
