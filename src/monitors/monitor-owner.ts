/**
 * The Owner a monitors call runs as, from an account id and its plan: the API (from the key's
 * caller) and the portal (from the signed-in account) build it the same way, so the plan's
 * active-monitor limit cannot differ between them.
 */
import type { PlanCatalog } from "../limits/plan-catalog.js";
import { findPlan } from "../limits/plan-catalog.js";
import type { Owner } from "./monitors-core.js";

/** The owner for `accountId` on `planId`. */
export function monitorOwner(catalog: PlanCatalog, accountId: string, planId: string): Owner {
  const plan = findPlan(catalog, planId);
  return {
    accountId,
    // null is the catalog's "unlimited"; only a plan missing from the catalog allows none.
    maxActiveMonitors: plan === undefined ? 0 : plan.maxActiveMonitors,
    planName: plan?.name ?? planId,
  };
}
