/** API keys as the store keeps them: a SHA-256 of the key, never the key itself. */
import type { LimitOverrides, PlanId } from "./caller.js";

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

/** The keys part of the store. */
export interface KeyRecords {
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
}
