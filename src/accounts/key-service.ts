/**
 * API keys: creation (the secret is returned once and only its hash is stored), authentication
 * on every call, listing, revocation and rotation with a grace period. Rules live here so the
 * server, the CLI and the portal apply the same ones whichever store is configured.
 *
 * Authentication caches key records for a few seconds (cacheTtlMs, default 5 s) because it runs
 * on every call. The trade-off: a revocation or rotation made in this process is visible at once
 * (its cache entry is dropped), but one made elsewhere (the CLI, another instance) is seen here
 * within cacheTtlMs. Expiry is evaluated on every call against the clock, so the end of a grace
 * period is exact whatever the cache holds. The same window applies when the store is down: a
 * key looked up in the last cacheTtlMs still authenticates, any other gets StoreUnavailableError
 * (503), never "invalid key" (docs/RELIABILITY.md, "Faults").
 */

import { AccountsError } from "./accounts-error.js";
import type { AuthResult, LimitOverrides, PlanId } from "./caller.js";
import { PLAN_IDS } from "./caller.js";
import { displayPrefix, generateKey, isKeyId, parseKeyId } from "./key-format.js";
import { hashKey, keyMatchesHash } from "./key-hash.js";
import { keyStatus } from "./key-status.js";
import { isPlanId } from "./plan-id.js";
import { newAccountId } from "./random-id.js";
import type { AccountRecord, AccountsStore, ApiKeyInfo, ApiKeyRecord } from "./store.js";
import { withoutHash } from "./store.js";
import { StoreUnavailableError } from "./store-unavailable.js";
import { TtlCache } from "./ttl-cache.js";

/** How the service is wired; everything but the store has a default. */
export interface KeyServiceOptions {
  store: AccountsStore;
  /** How long a rotated-out key keeps working, seconds (Config.keyRotationGraceSeconds). */
  rotationGraceSeconds?: number;
  /** The clock; tests inject one to cross grace periods without sleeping. */
  now?: () => Date;
  /** How long authenticate reuses a key record, ms; 0 disables the cache. Default 5000. */
  cacheTtlMs?: number;
  /** Most key records cached at once. Default 10000. */
  cacheMaxEntries?: number;
}

/**
 * Who a new key is for: an existing account by id, or an operator-made account by name (made if
 * no account has that name). A name is refused when several accounts carry it or when one came
 * from a portal sign-up, since anyone can sign up under any name.
 * A key has no plan of its own: `plan`, when given, must be the account's plan (a new account is
 * made on it, default free), so creating a key can never change what the account may call.
 */
export interface CreateKeyInput {
  accountId?: string;
  accountName?: string;
  plan?: string;
  name: string;
  overrides?: LimitOverrides;
  /**
   * "operator" (default: the CLI) or "owner" (the signed-in account itself, in the portal). An
   * operator may issue a key to a portal-made account only once its email is verified.
   */
  issuedBy?: "operator" | "owner";
}

/** A new key. `key` is the only copy of the secret that will ever exist. */
export interface CreatedKey {
  key: string;
  info: ApiKeyInfo;
  account: AccountRecord;
}

/** The result of a rotation: the new key (secret shown once) and the old key's new state. */
export interface RotatedKey {
  key: string;
  info: ApiKeyInfo;
  oldKey: ApiKeyInfo;
}

/** Everything the edges (interceptor, CLI, portal) do with keys. */
export interface KeyService {
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  /** Checks a presented key (without "Bearer "); a malformed key never reaches the store. */
  authenticate(presented: string | undefined): Promise<AuthResult>;
  listKeys(filter?: { accountId?: string }): Promise<ApiKeyInfo[]>;
  /** Revokes at once; revoking twice keeps the first time. */
  revokeKey(id: string): Promise<ApiKeyInfo>;
  /** Issues a replacement; the old key works until now + rotationGraceSeconds. */
  rotateKey(id: string): Promise<RotatedKey>;
  /** Moves an account, and so every one of its keys, to `plan`; returns the account. */
  setAccountPlan(accountId: string, plan: string): Promise<AccountRecord>;
}

const MAX_NAME_LENGTH = 100;
// Compared against when the key id is unknown, so that case costs the same hash-and-compare as
// a wrong secret and timing does not tell which key ids exist.
const ABSENT_HASH = hashKey("threadsight: no such key");

function checkPlan(plan: string): PlanId {
  if (!isPlanId(plan))
    throw new AccountsError("invalid_argument", `plan must be one of ${PLAN_IDS.join(", ")}, got "${plan}"`);
  return plan;
}

/** An account name as stored: trimmed, 1..100 characters, no control characters. */
export function checkAccountName(name: string): string {
  return checkName("account name", name);
}

function checkName(label: string, name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new AccountsError("invalid_argument", `${label} must not be blank`);
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw new AccountsError(
      "invalid_argument",
      `${label} must be at most ${MAX_NAME_LENGTH} characters, got ${trimmed.length}`,
    );
  }
  if (/\p{Cc}/u.test(trimmed))
    throw new AccountsError("invalid_argument", `${label} must not contain control characters`);
  return trimmed;
}

/** Why a name cannot address an account: it is shared, or a portal sign-up could have chosen it. */
export function ambiguousName(name: string, found: readonly AccountRecord[]): string {
  const ids = found.map((a) => `${a.id} (${a.origin === "portal" ? "portal sign-up" : "operator"})`).join(", ");
  const why =
    found.length > 1
      ? `${found.length} accounts are named "${name}"`
      : `the account named "${name}" was made by a portal sign-up`;
  return `${why}: ${ids}; name the account by its id (acct_...), or make a new one with \`threadsight accounts create NAME\``;
}

/** Refuses an operator action on a portal-made account whose email nobody has proved. */
export function requireVerifiedIfPortal(account: AccountRecord): void {
  if (account.origin === "portal" && account.emailVerifiedAt === null) {
    throw new AccountsError(
      "failed_precondition",
      `account ${account.id} was made by a portal sign-up and its email ${account.email ?? "(none)"} is not verified; ` +
        "it must follow the verification link first",
    );
  }
}

/** Builds the key service over a store. */
export function createKeyService(options: KeyServiceOptions): KeyService {
  const { store } = options;
  const now = options.now ?? (() => new Date());
  const graceMs = (options.rotationGraceSeconds ?? 86_400) * 1000;
  const cache = new TtlCache<ApiKeyRecord | undefined>(
    options.cacheTtlMs ?? 5_000,
    options.cacheMaxEntries ?? 10_000,
    () => now().getTime(),
  );

  async function resolveAccount(input: CreateKeyInput, plan: PlanId | undefined): Promise<AccountRecord> {
    const byOperator = (input.issuedBy ?? "operator") === "operator";
    if (input.accountId !== undefined) {
      if (input.accountName !== undefined) {
        throw new AccountsError("invalid_argument", "give either accountId or accountName, not both");
      }
      const account = await store.getAccount(input.accountId);
      if (account === undefined) throw new AccountsError("not_found", `no account with id "${input.accountId}"`);
      if (byOperator) requireVerifiedIfPortal(account);
      return account;
    }
    if (input.accountName === undefined) throw new AccountsError("invalid_argument", "give accountId or accountName");
    const name = checkName("account name", input.accountName);
    const found = await store.findAccountsByName(name);
    const [only] = found;
    if (only === undefined)
      return store.createAccount({
        id: newAccountId(),
        name,
        origin: "operator",
        plan: plan ?? "free",
        createdAt: now(),
      });
    if (found.length === 1 && only.origin === "operator") return only;
    throw new AccountsError("invalid_argument", ambiguousName(name, found));
  }

  async function existingKey(id: string): Promise<ApiKeyRecord> {
    const record = isKeyId(id) ? await store.getKey(id) : undefined;
    if (record === undefined) throw new AccountsError("not_found", `no key with id "${id}"`);
    return record;
  }

  return {
    async createKey(input) {
      const plan = input.plan === undefined ? undefined : checkPlan(input.plan);
      const name = checkName("name", input.name);
      const account = await resolveAccount(input, plan);
      if (plan !== undefined && plan !== account.plan) {
        throw new AccountsError(
          "failed_precondition",
          `account ${account.name} (${account.id}) is on the ${account.plan} plan and keys follow their account's plan; ` +
            `create the key with --plan ${account.plan} (or without --plan), or move the whole account with ` +
            `\`threadsight accounts set-plan ${account.id} ${plan}\``,
        );
      }
      const { id, key } = generateKey();
      const info = await store.insertKey({
        id,
        accountId: account.id,
        name,
        keyHash: hashKey(key),
        displayPrefix: displayPrefix(key),
        createdAt: now(),
        overrides: input.overrides ?? {},
      });
      // An earlier probe of this id may have cached "no such key"; the new key must work at once.
      cache.delete(id);
      return { key, info, account };
    },

    async authenticate(presented) {
      if (presented === undefined || presented === "") return { ok: false, failure: "missing" };
      const id = parseKeyId(presented);
      if (id === undefined) return { ok: false, failure: "malformed" };
      // Fail closed: a key that cannot be looked up is neither accepted nor called invalid.
      const record = await cache
        .get(id, () => store.getKey(id))
        .catch((err: unknown) => {
          throw new StoreUnavailableError("the accounts store is unreachable", { cause: err });
        });
      // Verify the secret before saying anything about the key's state: knowing an id (it is
      // printed in lists) must not be enough to learn whether that key is revoked.
      if (!keyMatchesHash(presented, record?.keyHash ?? ABSENT_HASH) || record === undefined) {
        return { ok: false, failure: "unknown" };
      }
      const status = keyStatus(record, now());
      if (status === "revoked") return { ok: false, failure: "revoked" };
      if (status === "expired") return { ok: false, failure: "expired" };
      return {
        ok: true,
        caller: {
          keyId: record.id,
          accountId: record.accountId,
          plan: record.plan,
          overrides: { ...record.overrides },
        },
      };
    },

    async listKeys(filter) {
      return store.listKeys(filter);
    },

    async revokeKey(id) {
      const info = isKeyId(id) ? await store.revokeKey(id, now()) : undefined;
      if (info === undefined) throw new AccountsError("not_found", `no key with id "${id}"`);
      cache.delete(id);
      return info;
    },

    async rotateKey(id) {
      const old = await existingKey(id);
      const at = now();
      if (old.revokedAt !== null) {
        throw new AccountsError("failed_precondition", `key "${id}" is revoked; create a new key instead`);
      }
      if (old.rotatedTo !== null) {
        const to = old.rotatedTo;
        throw new AccountsError(
          "failed_precondition",
          `key "${id}" was already rotated to "${to}"; rotate that key instead`,
        );
      }
      const { id: newId, key } = generateKey();
      const replacement = {
        id: newId,
        accountId: old.accountId,
        name: old.name,
        keyHash: hashKey(key),
        displayPrefix: displayPrefix(key),
        createdAt: at,
        overrides: old.overrides,
      };
      const rotated = await store.rotateKey(id, replacement, new Date(at.getTime() + graceMs));
      // False only when another process revoked or rotated the key since we read it.
      if (!rotated) {
        throw new AccountsError(
          "failed_precondition",
          `key "${id}" was revoked or rotated meanwhile; list keys and retry`,
        );
      }
      cache.delete(id);
      cache.delete(newId);
      const [info, oldKey] = await Promise.all([existingKey(newId), existingKey(id)]);
      return { key, info: withoutHash(info), oldKey: withoutHash(oldKey) };
    },

    async setAccountPlan(accountId, plan) {
      const checked = checkPlan(plan);
      if (!(await store.setAccountPlan(accountId, checked))) {
        throw new AccountsError("not_found", `no account with id "${accountId}"`);
      }
      // Which cached keys belong to the account is not known here; a plan change is rare.
      cache.clear();
      const account = await store.getAccount(accountId);
      if (account === undefined) throw new AccountsError("not_found", `no account with id "${accountId}"`);
      return account;
    },
  };
}
