/**
 * The billing seam. A self-service plan change asks the BillingProvider what happens: it applies
 * at once, goes through a payment page, takes effect at the end of the paid period, or is
 * refused. The account only moves when the provider says so (at once), or later when the
 * provider's signed notification arrives (stripe-billing.ts); operators move accounts with
 * `threadsight accounts set-plan`, which never asks billing.
 */
import type { PlanId } from "../accounts/caller.js";
import type { AccountRecord } from "../accounts/store.js";
import { PortalError } from "./portal-service.js";

/** What a plan change turned into. */
export type PlanChangeOutcome =
  /** Move the account now. */
  | { kind: "apply" }
  /** Send the user to a payment page; the plan moves when the provider confirms payment. */
  | { kind: "checkout"; url: string }
  /** Already arranged with the provider; the plan moves at `at` (the end of the paid period). */
  | { kind: "scheduled"; at: Date | undefined };

/** Where the provider sends the user back to after a payment page. */
export interface ReturnUrls {
  success: string;
  cancel: string;
}

/** Takes payment (or not) for a self-service plan change. */
export interface BillingProvider {
  /** "none" when no payment provider is configured. */
  readonly name: "none" | "stripe";
  /** Decides the change of `account` from `from` to `to`; throws a PortalError to refuse it. */
  changePlan(account: AccountRecord, from: PlanId, to: PlanId, urls: ReturnUrls): Promise<PlanChangeOutcome>;
  /**
   * Handles the provider's signed notification (raw body, signature header); undefined when the
   * provider sends none. Throws WebhookSignatureError for a body that is not signed right.
   */
  handleWebhook?(rawBody: Buffer, signature: string | undefined): Promise<{ type: string; handled: boolean }>;
}

/** A webhook whose signature is missing, wrong or too old: answered 400, nothing applied. */
export class WebhookSignatureError extends Error {
  override readonly name = "WebhookSignatureError";
}

/**
 * No payment provider: the only self-service change is to the free plan (the catalog's default),
 * which needs no payment and applies at once. Any paid plan is refused with a message saying how
 * to get one; an operator can still grant it with `threadsight accounts set-plan`.
 */
export function noBilling(freePlan: PlanId): BillingProvider {
  return {
    name: "none",
    async changePlan(_account, _from, to) {
      if (to === freePlan) return { kind: "apply" };
      throw new PortalError({
        kind: "forbidden",
        message: `the ${to} plan needs payment and this service takes none; you can move to the ${freePlan} plan, or ask the operator to move your account`,
      });
    },
  };
}
