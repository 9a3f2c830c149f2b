/**
 * Stripe as the billing provider. An upgrade from an unpaid plan opens a Checkout Session
 * (subscription mode, the plan's price); an upgrade of a live subscription updates its price
 * with `pending_if_incomplete`, so nothing changes until the invoice is paid; a move to the free
 * plan cancels at the end of the paid period. In every case the account's plan moves only when
 * Stripe's signed webhook says so (checkout.session.completed, customer.subscription.*), never
 * on the user's word.
 *
 * No billing state is stored here: the account id travels in the Checkout Session
 * (client_reference_id) and in the subscription's metadata, and the plan is read back from the
 * subscription's price, so a replayed or reordered event converges on Stripe's own state.
 */
import Stripe from "stripe";
import { AccountsError } from "../accounts/accounts-error.js";
import type { PlanId } from "../accounts/caller.js";
import { PLAN_IDS } from "../accounts/caller.js";
import type { KeyService } from "../accounts/key-service.js";
import type { BillingProvider, PlanChangeOutcome } from "./billing.js";
import { WebhookSignatureError } from "./billing.js";
import { PortalError } from "./portal-service.js";

/** Stripe settings (Config.stripe). */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** The Stripe price of each purchasable plan; a plan without one cannot be bought. */
  priceIds: Readonly<Partial<Record<PlanId, string>>>;
  /** Where the Stripe API answers; https://api.stripe.com unless testing against stripe-mock. */
  apiBase: string;
  /** Oldest accepted webhook signature, seconds. */
  webhookToleranceSeconds: number;
}

/** What the provider changes when Stripe confirms. */
export interface StripeBillingDeps {
  settings: StripeSettings;
  keys: Pick<KeyService, "setAccountPlan">;
  /** The plan an account returns to when its subscription ends. */
  freePlan: PlanId;
  /** Told about each handled event, for logs. */
  onEvent?: (type: string, accountId: string | undefined, plan: PlanId | undefined) => void;
}

const LIVE = new Set(["active", "trialing"]);
const ENDED = new Set(["canceled", "unpaid", "incomplete_expired"]);

function rank(plan: PlanId): number {
  return PLAN_IDS.indexOf(plan);
}

/** A Stripe client for `apiBase`, failing fast rather than retrying a checkout for long. */
export function stripeClient(settings: Pick<StripeSettings, "secretKey" | "apiBase">): Stripe {
  const base = new URL(settings.apiBase);
  return new Stripe(settings.secretKey, {
    host: base.hostname,
    port: base.port === "" ? (base.protocol === "https:" ? 443 : 80) : Number(base.port),
    protocol: base.protocol === "http:" ? "http" : "https",
    maxNetworkRetries: 1,
    timeout: 10_000,
  });
}

/** Builds the Stripe provider. */
export function stripeBilling(deps: StripeBillingDeps): BillingProvider {
  const { settings, freePlan } = deps;
  const stripe = stripeClient(settings);
  const planOfPrice = new Map<string, PlanId>();
  for (const [plan, price] of Object.entries(settings.priceIds))
    if (price !== undefined) planOfPrice.set(price, plan as PlanId);

  function priceOf(plan: PlanId): string {
    const price = settings.priceIds[plan];
    if (price === undefined) {
      throw new PortalError({
        kind: "forbidden",
        message: `the ${plan} plan cannot be bought here; ask the operator to move your account`,
      });
    }
    return price;
  }

  /** The account's live subscription, if any (Stripe's search, by the metadata we set). */
  async function liveSubscription(accountId: string): Promise<Stripe.Subscription | undefined> {
    const found = await stripe.subscriptions.search({ query: `metadata['account_id']:'${accountId}'`, limit: 10 });
    return found.data.find((s) => LIVE.has(s.status) && !s.cancel_at_period_end);
  }

  async function unavailable<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof PortalError) throw err;
      // A Stripe error's message can name our configuration; the user gets a plain one.
      throw new PortalError({
        kind: "conflict",
        message: "the payment provider could not be reached; your plan is unchanged, try again in a minute",
      });
    }
  }

  /** Moves the account; false when it no longer exists (the event is acknowledged, not retried). */
  async function move(accountId: string, plan: PlanId, type: string): Promise<boolean> {
    try {
      await deps.keys.setAccountPlan(accountId, plan);
    } catch (err) {
      if (err instanceof AccountsError && err.code === "not_found") return false;
      throw err;
    }
    deps.onEvent?.(type, accountId, plan);
    return true;
  }

  async function applySubscription(sub: Stripe.Subscription, type: string): Promise<boolean> {
    const accountId = sub.metadata?.account_id;
    if (accountId === undefined || accountId === "") return false;
    let plan: PlanId | undefined;
    if (type === "customer.subscription.deleted" || ENDED.has(sub.status)) plan = freePlan;
    else if (LIVE.has(sub.status)) plan = planOfPrice.get(sub.items.data[0]?.price.id ?? "");
    if (plan === undefined) return false;
    return move(accountId, plan, type);
  }

  return {
    name: "stripe",

    async changePlan(account, from, to, urls): Promise<PlanChangeOutcome> {
      return unavailable(async () => {
        const current = await liveSubscription(account.id);
        if (to === freePlan) {
          // Nothing paid to run out: an operator-granted plan ends now.
          if (current === undefined) return { kind: "apply" };
          const updated = await stripe.subscriptions.update(current.id, { cancel_at_period_end: true });
          const end = updated.items.data[0]?.current_period_end ?? updated.cancel_at ?? undefined;
          return { kind: "scheduled", at: end === undefined || end === null ? undefined : new Date(end * 1000) };
        }
        const price = priceOf(to);
        if (current === undefined) {
          const session = await stripe.checkout.sessions.create({
            mode: "subscription",
            line_items: [{ price, quantity: 1 }],
            client_reference_id: account.id,
            ...(account.email === null ? {} : { customer_email: account.email }),
            metadata: { account_id: account.id, plan: to },
            subscription_data: { metadata: { account_id: account.id } },
            success_url: urls.success,
            cancel_url: urls.cancel,
          });
          if (session.url === null) throw new Error("Checkout Session without a URL");
          return { kind: "checkout", url: session.url };
        }
        if (rank(to) < rank(from)) {
          throw new PortalError({
            kind: "forbidden",
            message: `moving down from ${from} to ${to} is done at the end of your paid period: move to the ${freePlan} plan, then subscribe to ${to}, or ask the operator`,
          });
        }
        const item = current.items.data[0];
        if (item === undefined) throw new Error("subscription without items");
        // Applies only once the prorated invoice is paid; the webhook then moves the plan.
        await stripe.subscriptions.update(current.id, {
          items: [{ id: item.id, price }],
          proration_behavior: "always_invoice",
          payment_behavior: "pending_if_incomplete",
        });
        return { kind: "scheduled", at: undefined };
      });
    },

    async handleWebhook(rawBody, signature) {
      if (signature === undefined || signature === "")
        throw new WebhookSignatureError("the Stripe-Signature header is missing");
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          signature,
          settings.webhookSecret,
          settings.webhookToleranceSeconds,
        );
      } catch (err) {
        throw new WebhookSignatureError(`the Stripe-Signature header does not verify: ${(err as Error).message}`);
      }
      switch (event.type) {
        case "checkout.session.completed": {
          const session = event.data.object;
          const accountId = session.client_reference_id ?? undefined;
          const plan = session.metadata?.plan;
          const paid = session.payment_status === "paid" || session.payment_status === "no_payment_required";
          if (accountId === undefined || plan === undefined || !paid || !PLAN_IDS.includes(plan as PlanId))
            return { type: event.type, handled: false };
          if (settings.priceIds[plan as PlanId] === undefined) return { type: event.type, handled: false };
          return { type: event.type, handled: await move(accountId, plan as PlanId, event.type) };
        }
        case "customer.subscription.created":
        case "customer.subscription.updated":
        case "customer.subscription.deleted":
          return { type: event.type, handled: await applySubscription(event.data.object, event.type) };
        default:
          return { type: event.type, handled: false };
      }
    },
  };
}
