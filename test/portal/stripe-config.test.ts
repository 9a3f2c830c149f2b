/** Stripe settings: off by default, all-or-nothing, and every mistake named by its variable. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";

const BASE = {
  STRIPE_SECRET_KEY: "sk_test_1",
  STRIPE_WEBHOOK_SECRET: "whsec_1",
  STRIPE_PRICE_IDS: "pro=price_pro, starter = price_starter",
};

test("Stripe is off unless configured, and parsed when it is", () => {
  assert.equal(loadConfig({}).stripe, undefined);
  const c = loadConfig(BASE).stripe;
  assert.deepEqual(c, {
    secretKey: "sk_test_1",
    webhookSecret: "whsec_1",
    priceIds: { pro: "price_pro", starter: "price_starter" },
    apiBase: "https://api.stripe.com",
    webhookToleranceSeconds: 300,
  });
  const local = loadConfig({
    ...BASE,
    STRIPE_API_BASE: "http://127.0.0.1:12111",
    STRIPE_WEBHOOK_TOLERANCE_SECONDS: "60",
  }).stripe;
  assert.equal(local?.apiBase, "http://127.0.0.1:12111");
  assert.equal(local?.webhookToleranceSeconds, 60);
});

test("Stripe mistakes stop startup with the variable's name", () => {
  const refuses = (env: Record<string, string>, pattern: RegExp) =>
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
      String(pattern),
    );
  refuses(
    { STRIPE_SECRET_KEY: "sk_test_1", STRIPE_PRICE_IDS: "pro=p" },
    /STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together/,
  );
  refuses({ STRIPE_WEBHOOK_SECRET: "whsec_1" }, /must be set together/);
  refuses({ STRIPE_PRICE_IDS: "pro=p" }, /STRIPE_PRICE_IDS is set but STRIPE_SECRET_KEY is not/);
  refuses({ ...BASE, STRIPE_PRICE_IDS: "" }, /STRIPE_PRICE_IDS must be set/);
  refuses({ ...BASE, STRIPE_PRICE_IDS: "gold=price_1" }, /STRIPE_PRICE_IDS: plan must be one of .*got "gold"/);
  refuses({ ...BASE, STRIPE_PRICE_IDS: "pro" }, /STRIPE_PRICE_IDS must be plan=price_id pairs/);
  refuses({ ...BASE, STRIPE_PRICE_IDS: "pro=a,pro=b" }, /names plan "pro" twice/);
  refuses({ ...BASE, STRIPE_API_BASE: "ftp://x" }, /STRIPE_API_BASE must use/);
  refuses(
    { ...BASE, STRIPE_WEBHOOK_TOLERANCE_SECONDS: "0" },
    /STRIPE_WEBHOOK_TOLERANCE_SECONDS must be between 1 and 3600/,
  );
});
