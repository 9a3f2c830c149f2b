/**
 * Who is calling: the result of authenticating an API key. Produced by the key service
 * (accounts/), read by the limits interceptor and the usage RPC.
 */

/** Plan ids of the catalog. */
export const PLAN_IDS = ["free", "lite", "starter", "pro", "enterprise"] as const;
/** One of {@link PLAN_IDS}. */
export type PlanId = (typeof PLAN_IDS)[number];

/** Per-key overrides of the plan's limits (Enterprise "custom"). Absent fields use the plan's. */
export interface LimitOverrides {
  /** Requests per minute. */
  ratePerMinute?: number;
  /** Calls per quota period; null = unlimited. */
  quota?: number | null;
}

/** An authenticated API key. */
export interface Caller {
  keyId: string;
  accountId: string;
  plan: PlanId;
  overrides: LimitOverrides;
}

/** Why a presented key was refused. */
export type AuthFailure = "missing" | "malformed" | "unknown" | "revoked" | "expired";

/** Outcome of authenticating a presented key. */
export type AuthResult = { ok: true; caller: Caller } | { ok: false; failure: AuthFailure };
