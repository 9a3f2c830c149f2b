/**
 * The billing seam. A plan change asks the BillingProvider first: it resolves once the change
 * is paid for or authorised and rejects to refuse it; only then does the portal move the
 * account and its keys. The immediate provider below has no payment step (self-hosted use, and
 * tests); a Stripe-backed provider would create or update the subscription here and throw a
 * PortalError (conflict) when the payment fails.
 */
import type { PlanId } from "../accounts/caller.js";
import type { AccountRecord } from "../accounts/store.js";

/** Takes payment (or not) for a plan change. */
export interface BillingProvider {
  /** Resolves when `account` may move from `from` to `to`; rejects to refuse the change. */
  changePlan(account: AccountRecord, from: PlanId, to: PlanId): Promise<void>;
}

/** Approves every change at once: no payment provider is involved. */
export function immediateBilling(): BillingProvider {
  return {
    async changePlan() {
      // Nothing to charge: the change applies as soon as the portal records it.
    },
  };
}
