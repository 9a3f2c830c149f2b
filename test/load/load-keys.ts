/**
 * The keys the load uses: several plans of the default catalog (Variant B). The keys that carry
 * the sustained load get per-key overrides (an Enterprise customer's agreed rate, and quotas
 * raised so minutes of load fit), as an operator would set them; the Lite and Free keys keep
 * their plan's limits and are EXPECTED to be refused with 429 (rate on Lite, quota on Free).
 * Those refusals are counted apart from errors, and must never be counted in usage.
 *
 * Keys are written to the accounts store before the service starts, through the same key
 * service the CLI and portal use.
 */

import type { LimitOverrides } from "../../src/accounts/caller.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";

/** One key of the mix. */
export interface KeySpec {
  /** Short label used in stream ids and the report. */
  label: string;
  plan: "free" | "lite" | "starter" | "pro" | "enterprise";
  overrides?: LimitOverrides;
  /** True when the plan's own limits are expected to refuse some calls with 429. */
  throttled: boolean;
  /** For a throttled key: req/s of each of its streams (one REST, one gRPC), set above its plan's rate. */
  streamRate?: number;
}

/** A created key. */
export interface LoadKey extends KeySpec {
  id: string;
  key: string;
}

/** Rate high enough that no sustained-load key is ever throttled. */
const UNTHROTTLED_RATE = 10_000_000;

/** The mix of keys. */
export const KEY_MIX: readonly KeySpec[] = [
  // Unlimited quota: `used` comes from the usage rows.
  { label: "enterprise", plan: "enterprise", overrides: { ratePerMinute: UNTHROTTLED_RATE }, throttled: false },
  // Limited quotas (raised): `used` comes from the quota counter, so both paths are reconciled.
  { label: "pro", plan: "pro", overrides: { ratePerMinute: UNTHROTTLED_RATE, quota: 10_000_000 }, throttled: false },
  {
    label: "starter",
    plan: "starter",
    overrides: { ratePerMinute: UNTHROTTLED_RATE, quota: 10_000_000 },
    throttled: false,
  },
  // Plan limits as sold: Lite 50/min and 500/month; Free 3/min and 3 per 7 days.
  // Lite at 2 x 2 req/s = 240/min against 50/min: refused from the first minute on.
  { label: "lite", plan: "lite", throttled: true, streamRate: 2 },
  { label: "free", plan: "free", throttled: true, streamRate: 1 },
];

/** Creates every key of `mix` in the accounts store of `dataDir` (the service must not run yet). */
export async function createLoadKeys(dataDir: string, mix: readonly KeySpec[] = KEY_MIX): Promise<LoadKey[]> {
  const store = await openAccountsStore({ dataDir });
  try {
    const keys = createKeyService({ store });
    const out: LoadKey[] = [];
    for (const spec of mix) {
      const created = await keys.createKey({
        accountName: `load ${spec.label}`,
        plan: spec.plan,
        name: `load ${spec.label} ${new Date().toISOString()}`,
        ...(spec.overrides ? { overrides: spec.overrides } : {}),
      });
      out.push({ ...spec, id: created.info.id, key: created.key });
    }
    return out;
  } finally {
    await store.close();
  }
}
