/**
 * The portal's accounts domain: sign-up and sign-in with passwords, fixed-lifetime sessions,
 * plan changes through the billing seam, the account's own keys, its usage, and the operator
 * view. Implements PortalService over the accounts store, the key service and the limits, so
 * the pages hold no rules of their own.
 *
 * Secrets: passwords are hashed with scrypt (password-hash.ts) and the hash never leaves this
 * module; session tokens are returned once and stored as SHA-256 only.
 */

import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { AccountsError } from "../accounts/accounts-error.js";
import type { PlanId } from "../accounts/caller.js";
import type { KeyService } from "../accounts/key-service.js";
import { newAccountId } from "../accounts/random-id.js";
import type { AccountRecord, AccountsStore, ApiKeyInfo } from "../accounts/store.js";
import { normalizeEmail } from "../accounts/store.js";
import type { LimitEnforcer } from "../limits/enforcer.js";
import type { PlanCatalog } from "../limits/plan-catalog.js";
import { findPlan } from "../limits/plan-catalog.js";
import { formatQuotaPeriod } from "../limits/quota-period.js";
import { checkEmail, checkName, checkNewPassword, MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from "./account-rules.js";
import { accountSummaries } from "./account-summaries.js";
import { accountCaller, accountUsage } from "./account-usage.js";
import type { BillingProvider, ReturnUrls } from "./billing.js";
import { noBilling } from "./billing.js";
import type { Mailer } from "./mailer.js";
import { DEFAULT_SCRYPT_COST, hashPassword, needsRehash, verifyPassword } from "./password-hash.js";
import type { PlanOffer, PortalAccount, PortalService, PortalSession } from "./portal-service.js";
import { PortalError } from "./portal-service.js";
import { hashToken, isTokenShaped, newToken } from "./session-token.js";
import type { SignInLimits } from "./sign-in-limiter.js";
import { createSignInLimiter } from "./sign-in-limiter.js";
import { alreadyRegisteredMail, verificationMail } from "./verification-mail.js";

/** What the portal service is built from. */
export interface PortalDeps {
  store: AccountsStore;
  keys: KeyService;
  enforcer: LimitEnforcer;
  catalog: PlanCatalog;
  /** Default: noBilling (self-service moves to the free plan only). */
  billing?: BillingProvider;
  /** Session lifetime, seconds; default 12 hours. Sessions are never extended. */
  sessionTtlSeconds?: number;
  /** Failed sign-in limits; defaults in sign-in-limiter.ts. */
  signInLimits?: SignInLimits;
  /** The clock for sessions, keys' ages and usage days; tests inject one. */
  now?: () => Date;
  /** Sends the verification mail; without one no mail is sent and accounts stay unverified. */
  mailer?: Mailer;
  /** The portal's public origin for links in mail (Config.portalPublicUrl). */
  publicUrl?: string;
  /** Told about a mail that could not be sent (sign-up answers before sending). */
  onMailError?: (err: unknown) => void;
  /** How long a verification link works, seconds; default 24 hours. */
  verificationTtlSeconds?: number;
  /** Sign-ups per client address per hour; default 10. */
  signUpsPerHour?: number;
}

/** Default session lifetime, seconds. */
export const DEFAULT_SESSION_TTL_SECONDS = 12 * 3600;
/** Default lifetime of an email verification link, seconds. */
export const DEFAULT_VERIFICATION_TTL_SECONDS = 24 * 3600;
/** Longest usage history the portal shows, days. */
export const MAX_USAGE_DAYS = 90;
// Expired sessions are swept at most this often, piggybacking on sign-ins (no timer to stop).
const SWEEP_INTERVAL_MS = 3_600_000;
const BAD_CREDENTIALS = "email or password is wrong";
const NO_ACCOUNT = "no such account";

/** The plan a new account gets: "free" when the catalog has it, else the catalog's first. */
export function defaultPlan(catalog: PlanCatalog): PlanId {
  return (findPlan(catalog, "free") ?? catalog.plans[0])?.id ?? "free";
}

function fromAccountsError(err: unknown, field: string): unknown {
  if (!(err instanceof AccountsError)) return err;
  if (err.code === "invalid_argument") return new PortalError({ kind: "invalid", field, message: err.message });
  if (err.code === "not_found") return new PortalError({ kind: "not_found", message: err.message });
  return new PortalError({ kind: "conflict", message: err.message });
}

/** The refusal of an attempt over a limit, saying when to retry. */
function rateLimited(retryAfterSeconds: number, what: string): PortalError {
  const wait =
    retryAfterSeconds < 60
      ? `${retryAfterSeconds} second${retryAfterSeconds === 1 ? "" : "s"}`
      : `${Math.ceil(retryAfterSeconds / 60)} minutes`;
  return new PortalError({
    kind: "rate_limited",
    message: `too many ${what}; try again in ${wait}`,
    retryAfterSeconds,
  });
}

/** Builds the portal service. */
export function createPortalService(deps: PortalDeps): PortalService {
  const { store, keys, enforcer, catalog } = deps;
  const now = deps.now ?? (() => new Date());
  const ttlMs = (deps.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS) * 1000;
  const limiter = createSignInLimiter(deps.signInLimits);
  const fallbackPlan = defaultPlan(catalog);
  const billing = deps.billing ?? noBilling(fallbackPlan);
  const publicUrl = (deps.publicUrl ?? "http://localhost:8080").replace(/\/+$/, "");
  const verificationTtlMs = (deps.verificationTtlSeconds ?? DEFAULT_VERIFICATION_TTL_SECONDS) * 1000;
  const signUps = new RateLimiterMemory({
    keyPrefix: "signup:addr",
    points: deps.signUpsPerHour ?? 10,
    duration: 3600,
  });
  // Mail goes out after the answer, so its latency (and which mail it is) cannot be timed.
  const sendLater = (message: Parameters<Mailer["send"]>[0]): void => {
    if (deps.mailer === undefined) return;
    deps.mailer.send(message).catch((err: unknown) => deps.onMailError?.(err));
  };
  // Verified against when the email is unknown, so that case costs one scrypt like a real one
  // and timing does not reveal which emails have accounts. Made now, not on the first unknown
  // email, which would otherwise cost two hashes and stand out.
  const dummyHash = hashPassword("threadsight: no such account");
  dummyHash.catch(() => undefined);
  let lastSweep = 0;

  async function toPortalAccount(account: AccountRecord): Promise<PortalAccount> {
    return {
      id: account.id,
      name: account.name,
      email: account.email ?? "",
      isAdmin: account.isAdmin,
      plan: account.plan,
      createdAt: account.createdAt,
    };
  }

  async function existingAccount(accountId: string): Promise<AccountRecord> {
    const account = await store.getAccount(accountId);
    if (account === undefined) throw new PortalError({ kind: "not_found", message: NO_ACCOUNT });
    return account;
  }

  async function sweepExpired(at: Date): Promise<void> {
    if (at.getTime() - lastSweep < SWEEP_INTERVAL_MS) return;
    lastSweep = at.getTime();
    await store.deleteExpiredSessions(at);
  }

  async function startSession(account: AccountRecord): Promise<PortalSession> {
    const at = now();
    await sweepExpired(at);
    const token = newToken();
    const csrfToken = newToken();
    const expiresAt = new Date(at.getTime() + ttlMs);
    await store.createSession({
      tokenHash: hashToken(token),
      accountId: account.id,
      csrfToken,
      createdAt: at,
      expiresAt,
    });
    return { token, csrfToken, expiresAt, account: await toPortalAccount(account) };
  }

  /** The key, if `accountId` owns it; the same not_found whether it is someone else's or absent. */
  async function ownedKey(accountId: string, keyId: string): Promise<ApiKeyInfo> {
    const found = (await store.listKeys({ accountId })).find((k) => k.id === keyId);
    if (found === undefined)
      throw new PortalError({ kind: "not_found", message: `no key with id "${keyId}" in your account` });
    return found;
  }

  return {
    async signUp(input, clientAddress) {
      const email = checkEmail(input.email);
      const name = checkName(input.name);
      checkNewPassword(input.password, email);
      try {
        await signUps.consume(clientAddress);
      } catch (rej) {
        if (!(rej instanceof RateLimiterRes)) throw rej;
        throw rateLimited(Math.max(1, Math.ceil(rej.msBeforeNext / 1000)), "sign-ups from your address");
      }
      // Hashed whether or not the email is taken, so both answers cost the same scrypt; the
      // answer is the same too, and only the mail to the address says which case it was.
      const passwordHash = await hashPassword(input.password);
      const at = now();
      let account: AccountRecord | undefined;
      if ((await store.findAccountByEmail(email)) === undefined) {
        try {
          account = await store.createAccount({
            id: newAccountId(),
            name,
            email,
            plan: fallbackPlan,
            passwordHash,
            origin: "portal",
            createdAt: at,
          });
        } catch (err) {
          // Two sign-ups with one email at once: the unique index let one through.
          if ((await store.findAccountByEmail(email)) === undefined) throw err;
        }
      }
      if (account === undefined) {
        sendLater(alreadyRegisteredMail(email, publicUrl));
        return;
      }
      const token = newToken();
      await store.createEmailVerification({
        tokenHash: hashToken(token),
        accountId: account.id,
        createdAt: at,
        expiresAt: new Date(at.getTime() + verificationTtlMs),
      });
      sendLater(verificationMail(email, publicUrl, token, verificationTtlMs / 1000));
    },

    async verifyEmail(token) {
      const invalid = new PortalError({
        kind: "invalid",
        field: "token",
        message: "this verification link is invalid, expired or already used; sign in and ask for a new one",
      });
      if (!isTokenShaped(token)) throw invalid;
      const accountId = await store.consumeEmailVerification(hashToken(token), now());
      if (accountId === undefined) throw invalid;
      return startSession(await existingAccount(accountId));
    },

    async signIn(input, clientAddress) {
      const email = normalizeEmail(input.email);
      if (email === "") throw new PortalError({ kind: "invalid", field: "email", message: "email is required" });
      if (email.length > MAX_EMAIL_LENGTH) {
        throw new PortalError({
          kind: "invalid",
          field: "email",
          message: `email must be at most ${MAX_EMAIL_LENGTH} characters`,
        });
      }
      if (input.password === "")
        throw new PortalError({ kind: "invalid", field: "password", message: "password is required" });
      // Reserved before any await: parallel attempts are counted one at a time (sign-in-limiter.ts).
      const gate = limiter.reserve(email, clientAddress, now());
      if (!gate.ok) throw rateLimited(gate.retryAfterSeconds, "failed sign-ins");
      const account = await store.findAccountByEmail(email);
      const stored = account === undefined ? undefined : await store.getPasswordHash(account.id);
      // An over-long password cannot have been set; it is checked against the dummy hash (one
      // scrypt) rather than hashed in full, and fails like any wrong password.
      const tooLong = [...input.password].length > MAX_PASSWORD_LENGTH;
      const against = stored === undefined || stored === null || tooLong ? await dummyHash : stored;
      const matches = await verifyPassword(tooLong ? "" : input.password, against);
      if (!matches || account === undefined || stored === undefined || stored === null || tooLong) {
        throw new PortalError({ kind: "bad_credentials", message: BAD_CREDENTIALS });
      }
      limiter.succeeded(email, clientAddress, now());
      if (needsRehash(stored, DEFAULT_SCRYPT_COST))
        await store.setPasswordHash(account.id, await hashPassword(input.password));
      return startSession(account);
    },

    async session(token) {
      if (!isTokenShaped(token)) return undefined;
      const record = await store.getSession(hashToken(token));
      if (record === undefined) return undefined;
      if (record.expiresAt.getTime() <= now().getTime()) {
        await store.deleteSession(record.tokenHash);
        return undefined;
      }
      const account = await store.getAccount(record.accountId);
      if (account === undefined) return undefined;
      return { csrfToken: record.csrfToken, expiresAt: record.expiresAt, account: await toPortalAccount(account) };
    },

    async signOut(token) {
      if (!isTokenShaped(token)) return;
      await store.deleteSession(hashToken(token));
    },

    plans() {
      return catalog.plans.map(
        (p): PlanOffer => ({
          id: p.id,
          name: p.name,
          apiAccess: p.apiAccess,
          quota: p.quota,
          period: formatQuotaPeriod(p.period),
          ratePerMinute: p.ratePerMinute,
        }),
      );
    },

    async changePlan(accountId, plan, urls: ReturnUrls) {
      const target = findPlan(catalog, plan);
      if (target === undefined) {
        const ids = catalog.plans.map((p) => p.id).join(", ");
        throw new PortalError({ kind: "invalid", field: "plan", message: `plan must be one of ${ids}, got "${plan}"` });
      }
      const account = await existingAccount(accountId);
      // A resubmitted form must not charge twice; the account is already on this plan.
      if (account.plan === target.id) return { account: await toPortalAccount(account), outcome: { kind: "apply" } };
      const outcome = await billing.changePlan(account, account.plan, target.id, urls);
      if (outcome.kind !== "apply") return { account: await toPortalAccount(account), outcome };
      try {
        return { account: await toPortalAccount(await keys.setAccountPlan(accountId, target.id)), outcome };
      } catch (err) {
        throw fromAccountsError(err, "plan");
      }
    },

    billingProvider() {
      return billing.name;
    },

    async billingWebhook(rawBody, signature) {
      if (billing.handleWebhook === undefined) {
        throw new PortalError({ kind: "not_found", message: "no billing provider is configured" });
      }
      return billing.handleWebhook(rawBody, signature);
    },

    async listKeys(accountId) {
      await existingAccount(accountId);
      return (await store.listKeys({ accountId })).reverse();
    },

    async createKey(accountId, name) {
      const account = await existingAccount(accountId);
      try {
        const created = await keys.createKey({ accountId, plan: account.plan, name, issuedBy: "owner" });
        return { key: created.key, info: created.info };
      } catch (err) {
        throw fromAccountsError(err, "name");
      }
    },

    async rotateKey(accountId, keyId) {
      await ownedKey(accountId, keyId);
      try {
        return await keys.rotateKey(keyId);
      } catch (err) {
        throw fromAccountsError(err, "keyId");
      }
    },

    async revokeKey(accountId, keyId) {
      await ownedKey(accountId, keyId);
      try {
        return await keys.revokeKey(keyId);
      } catch (err) {
        throw fromAccountsError(err, "keyId");
      }
    },

    async usage(accountId, days) {
      if (!Number.isSafeInteger(days) || days < 1 || days > MAX_USAGE_DAYS) {
        throw new PortalError({
          kind: "invalid",
          field: "days",
          message: `days must be a whole number from 1 to ${MAX_USAGE_DAYS}, got ${days}`,
        });
      }
      const account = await existingAccount(accountId);
      const accountKeys = await store.listKeys({ accountId });
      const at = now();
      const caller = accountCaller(accountId, account.plan, accountKeys, at);
      return accountUsage({ store, enforcer, catalog }, caller, days, at);
    },

    async listAccounts(asAccountId) {
      const viewer = await store.getAccount(asAccountId);
      if (viewer === undefined || !viewer.isAdmin) {
        throw new PortalError({ kind: "forbidden", message: "only operators (admin accounts) can list accounts" });
      }
      return accountSummaries(store, now());
    },
  };
}
