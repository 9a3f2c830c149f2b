/**
 * Accounts as the store keeps them: the account itself, its password hash (read only by the
 * portal's sign-in) and its one-time e-mail verifications.
 */
import type { PlanId } from "./caller.js";

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

/** The canonical stored form of an email address. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The accounts part of the store. */
export interface AccountRecords {
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
}
