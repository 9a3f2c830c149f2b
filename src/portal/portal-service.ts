/**
 * What the developer portal's web layer (src/portal/web/) may ask of the accounts domain: sign-up
 * and sign-in with passwords, sessions, plan changes through a billing provider, the account's
 * own API keys, usage, and the operator's view. The web layer renders and protects (cookies,
 * CSRF, headers); every rule (password policy, ownership of keys, who is admin) lives behind this
 * interface so the CLI and the pages cannot disagree.
 *
 * Secrets: a key's secret appears only in the return value of createKey/rotateKey (shown once);
 * a session token only in the return value of signUp/signIn. Neither is stored: the store keeps
 * SHA-256 hashes, and password hashes never leave the implementation.
 */
import type { PlanId } from "../accounts/caller.js";
import type { AccountOrigin, ApiKeyInfo } from "../accounts/store.js";
import type { PlanChangeOutcome, ReturnUrls } from "./billing.js";

/** The signed-in account as the pages show it. */
export interface PortalAccount {
  id: string;
  name: string;
  email: string;
  isAdmin: boolean;
  /** The account's plan: every one of its keys is on it (keys have no plan of their own). */
  plan: PlanId;
  createdAt: Date;
}

/** A session: the cookie carries `token`; forms carry `csrfToken`. */
export interface PortalSession {
  /** Opaque bearer secret for the session cookie (never stored; its hash is). */
  token: string;
  /** Per-session CSRF token every state-changing form must echo. */
  csrfToken: string;
  expiresAt: Date;
  account: PortalAccount;
}

/** A session looked up from its cookie (no token: the caller already has it). */
export interface ActiveSession {
  csrfToken: string;
  expiresAt: Date;
  account: PortalAccount;
}

/** A plan as the plan picker shows it. */
export interface PlanOffer {
  id: PlanId;
  name: string;
  apiAccess: boolean;
  /** Calls per period; null = unlimited. */
  quota: number | null;
  /** "calendar_month", "7d", ... as in the catalog. */
  period: string;
  /** null = custom (agreed per key). */
  ratePerMinute: number | null;
}

/** Usage of one account for its current period. */
export interface PortalUsage {
  plan: PlanId;
  periodStart: Date;
  /** Exclusive; when the quota resets. */
  periodEnd: Date;
  used: number;
  /** null = unlimited. */
  limit: number | null;
  remaining: number | null;
  ratePerMinute: number;
  /** Every operation (zeros included) in the documented order. */
  perOperation: { operation: string; count: number }[];
  /** One entry per UTC day of the last `days` days, oldest first, zeros included. */
  daily: { day: string; count: number }[];
}

/** One row of the operator view. */
export interface AccountSummary {
  id: string;
  name: string;
  email: string | null;
  /** Who made the account: an operator (CLI) or a portal sign-up. */
  origin: AccountOrigin;
  /** Whether the email was proved by its one-time link. */
  emailVerified: boolean;
  isAdmin: boolean;
  plan: PlanId | null;
  createdAt: Date;
  activeKeys: number;
  /** Calls counted in the current calendar month (UTC), all keys. */
  callsThisMonth: number;
}

/**
 * Failures the pages turn into messages. `field` names the form field at fault when there is one.
 * Sign-in failures never say whether the email exists.
 */
export type PortalFailure =
  | { kind: "invalid"; field: string; message: string }
  | { kind: "email_taken"; field: "email"; message: string }
  | { kind: "bad_credentials"; message: string }
  | { kind: "rate_limited"; message: string; retryAfterSeconds: number }
  | { kind: "not_found"; message: string }
  | { kind: "forbidden"; message: string }
  | { kind: "conflict"; message: string };

/** Thrown by every PortalService method for a failure the user can act on. */
export class PortalError extends Error {
  override readonly name = "PortalError";
  constructor(readonly failure: PortalFailure) {
    super(failure.message);
  }
}

/** Everything the portal pages do. */
export interface PortalService {
  /**
   * Answers the same whether the email is new or taken (no session either way): a new account
   * gets a one-time verification link by mail, a taken address a mail saying it has an account.
   * Rate limited per address.
   */
  signUp(input: { email: string; password: string; name: string }, clientAddress: string): Promise<void>;
  /** Spends a verification link's token: marks the email verified and signs the account in. */
  verifyEmail(token: string): Promise<PortalSession>;
  /** Rate limited per address and per email; a failure never tells whether the email exists. */
  signIn(input: { email: string; password: string }, clientAddress: string): Promise<PortalSession>;
  /** undefined for an unknown, expired or malformed token. Extends nothing (fixed lifetime). */
  session(token: string): Promise<ActiveSession | undefined>;
  signOut(token: string): Promise<void>;

  plans(): readonly PlanOffer[];
  /**
   * Asks the billing provider: the free plan applies at once (or at the end of a paid period),
   * a paid plan needs payment (a Checkout URL) and moves only on the provider's signed webhook.
   * Every key of the account follows the account's plan.
   */
  changePlan(
    accountId: string,
    plan: string,
    urls: ReturnUrls,
  ): Promise<{ account: PortalAccount; outcome: PlanChangeOutcome }>;
  /** Which payment provider is configured ("none": paid plans are granted by operators only). */
  billingProvider(): "none" | "stripe";
  /** Verifies and applies a provider's webhook; throws WebhookSignatureError on a bad signature. */
  billingWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ type: string; handled: boolean }>;

  /** The account's keys (no secrets), newest first, revoked ones included. */
  listKeys(accountId: string): Promise<ApiKeyInfo[]>;
  /** The secret in `key` is shown once. */
  createKey(accountId: string, name: string): Promise<{ key: string; info: ApiKeyInfo }>;
  /** The old key keeps working for the configured grace period. */
  rotateKey(accountId: string, keyId: string): Promise<{ key: string; info: ApiKeyInfo; oldKey: ApiKeyInfo }>;
  revokeKey(accountId: string, keyId: string): Promise<ApiKeyInfo>;

  /** Current period plus the last `days` UTC days (1..90). */
  usage(accountId: string, days: number): Promise<PortalUsage>;

  /** Operator view; throws forbidden unless `asAccountId` is an admin. */
  listAccounts(asAccountId: string): Promise<AccountSummary[]>;
}
