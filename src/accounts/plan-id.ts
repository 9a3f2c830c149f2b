/**
 * Checking strings that claim to be plan ids (CLI flags, portal forms) against the catalog's
 * fixed id list before they reach a store, where no constraint would stop them.
 */

import type { PlanId } from "./caller.js";
import { PLAN_IDS } from "./caller.js";

/** True when `value` is one of PLAN_IDS. */
export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value);
}
