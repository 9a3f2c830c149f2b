/**
 * Paid plans need payment. Without a billing provider the portal refuses any paid plan; with
 * Stripe (the official `stripe` library talking to stripe-mock, Stripe's own mock server, on
 * loopback) an upgrade opens Checkout and the account moves only when a webhook signed exactly as
 * Stripe signs it arrives at POST /portal/billing/stripe/webhook. Badly signed, unsigned and
 * stale webhooks are refused and change nothing. Pages are driven over real HTTP.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import Fastify from "fastify";
import type { KeyService } from "../../src/accounts/key-service.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openSqliteStore } from "../../src/accounts/sqlite-store.js";
import type { AccountsStore } from "../../src/accounts/store.js";
import type { Limits } from "../../src/limits/open-limits.js";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import type { BillingProvider } from "../../src/portal/billing.js";
import { createPortalService } from "../../src/portal/portal-accounts.js";
import type { PortalService } from "../../src/portal/portal-service.js";
import { PortalError } from "../../src/portal/portal-service.js";
import type { StripeSettings } from "../../src/portal/stripe-billing.js";
import { stripeBilling } from "../../src/portal/stripe-billing.js";
import { portalPlugin } from "../../src/portal/web/portal-plugin.js";
import type { StripeMock } from "../harness/stripe-mock.js";
import { startStripeMock, stripeEvent, stripeMockSkipReason, stripeSignature } from "../harness/stripe-mock.js";
import { limitsFor } from "../limits/fixtures.js";

const CATALOG = loadPlanCatalog("config/plans/variant-b.json");
const WEBHOOK_SECRET = "whsec_test_threadsight";
const PASSWORD = "correct horse battery";
const skip = stripeMockSkipReason();

/** A portal (service + pages on a real listener) over a fresh SQLite store. */
interface Portal {
  url: string;
  service: PortalService;
  keys: KeyService;
  store: AccountsStore;
  close(): Promise<void>;
}

async function startPortal(billing: (keys: KeyService) => BillingProvider | undefined): Promise<Portal> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-billing-"));
  const store = await openSqliteStore(path.join(dataDir, "accounts.sqlite"));
  const keys = createKeyService({ store });
  const limits: Limits = await limitsFor(CATALOG, { dataDir });
  const provider = billing(keys);
  const service = createPortalService({
    store,
    keys,
    enforcer: limits.enforcer,
    catalog: CATALOG,
    ...(provider ? { billing: provider } : {}),
  });
  const app: FastifyInstance = Fastify();
  await app.register(portalPlugin, {
    prefix: "/portal",
    service,
    tls: false,
    cookieSecure: false,
    maxBodyBytes: 65_536,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    service,
    keys,
    store,
    close: async () => {
      await app.close();
      await limits.close();
      await store.close();
    },
  };
}

let seq = 0;

/** Signs up over the service and returns what a browser would hold, plus a key of the account. */
async function signedUp(portal: Portal): Promise<{ accountId: string; cookie: string; csrf: string; key: string }> {
  const email = `payer${++seq}-${process.pid}@example.com`;
  // Sign-up starts no session (the address is confirmed by mail); signing in does.
  await portal.service.signUp({ email, password: PASSWORD, name: "Payer" }, "192.0.2.1");
  const s = await portal.service.signIn({ email, password: PASSWORD }, "192.0.2.1");
  const created = await portal.service.createKey(s.account.id, "laptop");
  return { accountId: s.account.id, cookie: `ts_session=${s.token}`, csrf: s.csrfToken, key: created.key };
}

/** Chooses `plan` on the plans page, as the form does. */
async function choosePlan(portal: Portal, who: { cookie: string; csrf: string }, plan: string): Promise<Response> {
  return fetch(`${portal.url}/portal/plans`, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie: who.cookie,
      "content-type": "application/x-www-form-urlencoded",
      origin: portal.url,
      "sec-fetch-site": "same-origin",
    },
    body: new URLSearchParams({ plan, csrf_token: who.csrf }).toString(),
  });
}

async function planOf(portal: Portal, accountId: string, key: string): Promise<string> {
  const account = await portal.store.getAccount(accountId);
  const auth = await portal.keys.authenticate(key);
  assert.ok(auth.ok);
  assert.equal(auth.caller.plan, account?.plan, "the key is on its account's plan");
  return auth.caller.plan;
}

async function postWebhook(portal: Portal, body: string, signature: string | undefined): Promise<Response> {
  return fetch(`${portal.url}/portal/billing/stripe/webhook`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(signature === undefined ? {} : { "stripe-signature": signature }),
    },
    body,
  });
}

describe("paid plans without a billing provider", () => {
  let portal: Portal;
  before(async () => {
    portal = await startPortal(() => undefined);
  });
  after(() => portal.close());

  it("refuses a paid plan (403, plan unchanged) and allows Free", async () => {
    const who = await signedUp(portal);
    const refused = await choosePlan(portal, who, "enterprise");
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /needs payment/);
    assert.equal(await planOf(portal, who.accountId, who.key), "free");
    await assert.rejects(
      portal.service.changePlan(who.accountId, "pro", { success: "x", cancel: "y" }),
      (e: unknown) => e instanceof PortalError && e.failure.kind === "forbidden",
    );
    // An operator-granted plan can be left for Free at once.
    await portal.keys.setAccountPlan(who.accountId, "pro");
    const down = await choosePlan(portal, who, "free");
    assert.equal(down.status, 303);
    assert.equal(down.headers.get("location"), "/portal/plans?changed=free");
    assert.equal(await planOf(portal, who.accountId, who.key), "free");
  });

  it("has no webhook to call", async () => {
    const body = stripeEvent("checkout.session.completed", { object: "checkout.session" });
    const r = await postWebhook(portal, body, stripeSignature(body, WEBHOOK_SECRET));
    assert.equal(r.status, 404);
  });
});

describe("paid plans through Stripe (stripe-mock)", { skip }, () => {
  let mock: StripeMock;
  let portal: Portal;
  before(async () => {
    mock = await startStripeMock();
    const settings: StripeSettings = {
      secretKey: "sk_test_threadsight",
      webhookSecret: WEBHOOK_SECRET,
      priceIds: { starter: "price_starter_test", pro: "price_pro_test" },
      apiBase: mock.url,
      webhookToleranceSeconds: 300,
    };
    portal = await startPortal((keys) => stripeBilling({ settings, keys, freePlan: "free" }));
  });
  after(async () => {
    await portal?.close();
    await mock?.stop();
  });

  function checkoutCompleted(accountId: string, plan: string, paymentStatus = "paid"): string {
    return stripeEvent("checkout.session.completed", {
      id: "cs_test_1",
      object: "checkout.session",
      mode: "subscription",
      client_reference_id: accountId,
      metadata: { account_id: accountId, plan },
      payment_status: paymentStatus,
      status: "complete",
      subscription: "sub_test_1",
      customer: "cus_test_1",
    });
  }

  function subscription(type: string, accountId: string, status: string, price: string): string {
    return stripeEvent(type, {
      id: "sub_test_1",
      object: "subscription",
      status,
      cancel_at_period_end: false,
      metadata: { account_id: accountId },
      items: {
        object: "list",
        data: [{ id: "si_test_1", object: "subscription_item", price: { id: price, object: "price" } }],
      },
    });
  }

  it("sends an upgrade to Stripe Checkout and changes nothing until a signed webhook", async () => {
    const who = await signedUp(portal);
    const r = await choosePlan(portal, who, "pro");
    assert.equal(r.status, 303);
    const location = r.headers.get("location") ?? "";
    assert.match(location, /^https:\/\//, `Checkout URL from Stripe, got "${location}"`);
    assert.equal(await planOf(portal, who.accountId, who.key), "free", "no payment yet: still free");

    // Not signed by Stripe: refused, nothing applied.
    const body = checkoutCompleted(who.accountId, "pro");
    const forged = await postWebhook(portal, body, stripeSignature(body, "whsec_someone_else"));
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /INVALID_SIGNATURE/);
    const unsigned = await postWebhook(portal, body, undefined);
    assert.equal(unsigned.status, 400);
    const stale = await postWebhook(
      portal,
      body,
      stripeSignature(body, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600),
    );
    assert.equal(stale.status, 400, "a signature older than the tolerance is a replay");
    const tampered = await postWebhook(
      portal,
      body.replace('"pro"', '"enterprise"'),
      stripeSignature(body, WEBHOOK_SECRET),
    );
    assert.equal(tampered.status, 400, "the signature covers the exact body");
    assert.equal(await planOf(portal, who.accountId, who.key), "free");

    // An unpaid Checkout (e.g. a delayed payment method) does not move the plan either.
    const unpaid = checkoutCompleted(who.accountId, "pro", "unpaid");
    assert.equal((await postWebhook(portal, unpaid, stripeSignature(unpaid, WEBHOOK_SECRET))).status, 200);
    assert.equal(await planOf(portal, who.accountId, who.key), "free");

    const ok = await postWebhook(portal, body, stripeSignature(body, WEBHOOK_SECRET));
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { received: true, handled: true });
    assert.equal(await planOf(portal, who.accountId, who.key), "pro");
  });

  it("follows the subscription: a price change moves the plan, its end returns to Free", async () => {
    const who = await signedUp(portal);
    const updated = subscription("customer.subscription.updated", who.accountId, "active", "price_starter_test");
    assert.equal((await postWebhook(portal, updated, stripeSignature(updated, WEBHOOK_SECRET))).status, 200);
    assert.equal(await planOf(portal, who.accountId, who.key), "starter");
    const unknownPrice = subscription("customer.subscription.updated", who.accountId, "active", "price_not_ours");
    const r = await postWebhook(portal, unknownPrice, stripeSignature(unknownPrice, WEBHOOK_SECRET));
    assert.deepEqual(await r.json(), { received: true, handled: false });
    assert.equal(await planOf(portal, who.accountId, who.key), "starter");
    const deleted = subscription("customer.subscription.deleted", who.accountId, "canceled", "price_starter_test");
    assert.equal((await postWebhook(portal, deleted, stripeSignature(deleted, WEBHOOK_SECRET))).status, 200);
    assert.equal(await planOf(portal, who.accountId, who.key), "free");
  });

  it("acknowledges events for unknown accounts and other event types without effect", async () => {
    const ghost = checkoutCompleted("acct_doesnotexist", "pro");
    const r = await postWebhook(portal, ghost, stripeSignature(ghost, WEBHOOK_SECRET));
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { received: true, handled: false });
    const other = stripeEvent("invoice.paid", { id: "in_1", object: "invoice" });
    const o = await postWebhook(portal, other, stripeSignature(other, WEBHOOK_SECRET));
    assert.deepEqual(await o.json(), { received: true, handled: false });
  });
});
