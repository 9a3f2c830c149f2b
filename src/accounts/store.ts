/**
 * The accounts store: accounts, API keys and per-day usage counters behind one interface, so the
 * key service, the limits interceptor and the portal work the same on SQLite (embedded default)
 * and PostgreSQL. Both implementations pass one contract suite (test/accounts/store-contract.ts).
 *
 * The store holds facts only; rules (key format, hashing, expiry, plan checks) live in the key
 * service. It never sees a key's secret, only its SHA-256 hash.
 */
import type { LimitOverrides, PlanId } from "./caller.js";

/**
 * An account: the owner of API keys and, for the portal, of a subscription. Never carries the
 * password hash, so a record can be logged or serialised safely.
 */
export interface AccountRecord {
  id: string;
  name: string;
  /** Unique when set, always lowercase; null for accounts made from the CLI. */
  email: string | null;
  createdAt: Date;
  isAdmin: boolean;
  /**
   * The account's plan: the one plan every key of the account is admitted on and every quota of
   * the account is counted against. Keys carry no plan of their own.
   */
  plan: PlanId;
  /** Who made the account: an operator (CLI) or anyone signing up in the portal. */
  origin: AccountOrigin;
  /** When the owner proved the email by following the one-time link; null until then. */
  emailVerifiedAt: Date | null;
}

/** Who made an account. Only operator-made accounts may be addressed by name from the CLI. */
export type AccountOrigin = "operator" | "portal";

/** A pending email verification: only the token's SHA-256 is stored. */
export interface EmailVerificationRecord {
  /** SHA-256 of the token sent in the link, lowercase hex. */
  tokenHash: string;
  accountId: string;
  createdAt: Date;
  expiresAt: Date;
}

/** What it takes to create an account. */
export interface NewAccount {
  id: string;
  name: string;
  /** Stored lowercase (trimmed); uniqueness is therefore case-insensitive. */
  email?: string | null;
  isAdmin?: boolean;
  /** Default "free". */
  plan?: PlanId;
  /** Set with the account so a sign-up never leaves an account without its password. */
  passwordHash?: string | null;
  /** Default "operator"; the portal passes "portal". */
  origin?: AccountOrigin;
  createdAt: Date;
}

/** A portal session as stored: the token itself never is, only its SHA-256. */
export interface SessionRecord {
  /** SHA-256 of the session token, lowercase hex. */
  tokenHash: string;
  accountId: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Calls of one operation by all keys of an account on one UTC day. */
export interface AccountDayUsage {
  day: string;
  operation: string;
  count: number;
}

/** The canonical stored form of an email address. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** An API key as it may be shown: no hash, no secret. */
export interface ApiKeyInfo {
  /** The key id; it is also embedded in the key itself. */
  id: string;
  accountId: string;
  name: string;
  /** The plan of the key's account when the key was read; a key has no plan of its own. */
  plan: PlanId;
  /** The first characters of the key, enough to recognise it, far too few to use it. */
  displayPrefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** Set when the key was rotated: it keeps working until then (the grace period). */
  expiresAt: Date | null;
  /** The id of the key that replaced this one. */
  rotatedTo: string | null;
  overrides: LimitOverrides;
}

/** A stored API key including its hash; only the key service should read this. */
export interface ApiKeyRecord extends ApiKeyInfo {
  /** SHA-256 of the full key, lowercase hex. */
  keyHash: string;
}

/** The showable part of a key record. */
export function withoutHash(record: ApiKeyRecord): ApiKeyInfo {
  const { keyHash: _hidden, ...info } = record;
  return info;
}

/** What it takes to store a new key. */
export interface NewApiKey {
  id: string;
  accountId: string;
  name: string;
  keyHash: string;
  displayPrefix: string;
  createdAt: Date;
  overrides?: LimitOverrides;
}

/** One usage counter: calls of one operation by one key on one UTC day. */
export interface UsageRow {
  keyId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  operation: string;
  count: number;
}

/** The store every accounts consumer talks to. Every method is async; none caches. */
export interface AccountsStore {
  /** Which backend this is, for logs and readiness messages. */
  readonly kind: "sqlite" | "postgres";

  createAccount(account: NewAccount): Promise<AccountRecord>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** Names need not be unique; the oldest account comes first. */
  findAccountsByName(name: string): Promise<AccountRecord[]>;
  listAccounts(): Promise<AccountRecord[]>;
  /** The account with this email, compared case-insensitively. */
  findAccountByEmail(email: string): Promise<AccountRecord | undefined>;
  /**
   * The stored password hash; undefined when no such account, null when it has no password.
   * Only the portal's sign-in may call this: the hash must never leave it.
   */
  getPasswordHash(accountId: string): Promise<string | null | undefined>;
  /** Replaces the password hash; false when no such account. */
  setPasswordHash(accountId: string, hash: string | null): Promise<boolean>;
  /** Sets the account's plan, and with it the plan of every key of the account; false when no such account. */
  setAccountPlan(accountId: string, plan: PlanId): Promise<boolean>;
  /** Grants or revokes the operator role; false when no such account. */
  setAdmin(accountId: string, isAdmin: boolean): Promise<boolean>;

  /** Stores a pending verification; throws when the token hash exists or the account does not. */
  createEmailVerification(verification: EmailVerificationRecord): Promise<void>;
  /**
   * Atomically spends a verification token: deletes it and, when it had not expired at `now`,
   * sets the account's emailVerifiedAt (kept if already set) and returns the account id.
   * A token works once; an unknown, spent or expired one gives undefined.
   */
  consumeEmailVerification(tokenHash: string, now: Date): Promise<string | undefined>;

  /** Stores a session; throws when the token hash exists or the account does not. */
  createSession(session: SessionRecord): Promise<void>;
  /** The session with this token hash, expired or not (the caller judges expiry). */
  getSession(tokenHash: string): Promise<SessionRecord | undefined>;
  /** Ends one session; false when there was none. */
  deleteSession(tokenHash: string): Promise<boolean>;
  /** Removes sessions with expiresAt <= now; returns how many. */
  deleteExpiredSessions(now: Date): Promise<number>;

  /** Stores a new key; throws when the id exists or the account does not. */
  insertKey(key: NewApiKey): Promise<ApiKeyInfo>;
  /** The key with its hash, for authentication. */
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  /** Keys without hashes, oldest first; all accounts unless one is named. */
  listKeys(filter?: { accountId?: string }): Promise<ApiKeyInfo[]>;
  /** Marks a key revoked; undefined when no such key. A second revoke keeps the first time. */
  revokeKey(id: string, at: Date): Promise<ApiKeyInfo | undefined>;
  /**
   * In one transaction: stores `replacement` and sets the old key's expiresAt and rotatedTo.
   * Returns false (and stores nothing) unless the old key exists, is not revoked and was not
   * rotated before.
   */
  rotateKey(oldId: string, replacement: NewApiKey, oldExpiresAt: Date): Promise<boolean>;
  /** Replaces a key's limit overrides; false when no such key. */
  setOverrides(keyId: string, overrides: LimitOverrides): Promise<boolean>;

  /** Adds n (a whole number >= 1) to a counter, atomically even across processes. */
  recordUsage(keyId: string, day: string, operation: string, n: number): Promise<void>;
  /** Counters of one key for the inclusive day range, ordered by day then operation. */
  usageBetween(keyId: string, fromDay: string, toDay: string): Promise<UsageRow[]>;
  /** Counters of every key of an account, ordered by day, key, operation. */
  usageByAccount(accountId: string, fromDay: string, toDay: string): Promise<UsageRow[]>;
  /** Counters of an account summed over its keys, ordered by day then operation. */
  accountDailyUsage(accountId: string, fromDay: string, toDay: string): Promise<AccountDayUsage[]>;
  /** Total calls per account over the day range; accounts without calls are absent. */
  usageTotalsByAccount(fromDay: string, toDay: string): Promise<Map<string, number>>;

  /** Highest migration applied; tests and operators use it to see what a database holds. */
  schemaVersion(): Promise<number>;
  /** Resolves when the database answers a trivial query; rejects otherwise (readiness). */
  ping(): Promise<void>;
  /** Releases the connection(s); the store is unusable afterwards. */
  close(): Promise<void>;
}
