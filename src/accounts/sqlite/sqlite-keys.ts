/** The keys part of the SQLite store. */
import type Database from "better-sqlite3";
import type { PlanId } from "../caller.js";
import type { ApiKeyInfo, ApiKeyRecord, KeyRecords, NewApiKey } from "../key-records.js";
import { withoutHash } from "../key-records.js";
import { parseOverrides } from "../limit-overrides.js";

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  plan: string;
  key_hash: string;
  display_prefix: string;
  created_at: number;
  revoked_at: number | null;
  expires_at: number | null;
  rotated_to: string | null;
  overrides: string;
}

const KEY_COLUMNS =
  "id, account_id, name, key_hash, display_prefix, created_at, revoked_at, expires_at, rotated_to, overrides, " +
  // A key has no plan of its own: every read takes its account's, so one change moves them all.
  "(SELECT a.plan FROM accounts a WHERE a.id = api_keys.account_id) AS plan";

function toKeyRecord(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    plan: r.plan as PlanId,
    keyHash: r.key_hash,
    displayPrefix: r.display_prefix,
    createdAt: new Date(r.created_at),
    revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
    expiresAt: r.expires_at === null ? null : new Date(r.expires_at),
    rotatedTo: r.rotated_to,
    overrides: parseOverrides(JSON.parse(r.overrides)),
  };
}

function toKeyInfo(r: KeyRow): ApiKeyInfo {
  return withoutHash(toKeyRecord(r));
}

function keyParams(k: NewApiKey): Record<string, unknown> {
  return {
    id: k.id,
    account_id: k.accountId,
    name: k.name,
    key_hash: k.keyHash,
    display_prefix: k.displayPrefix,
    created_at: k.createdAt.getTime(),
    overrides: JSON.stringify(parseOverrides(k.overrides)),
  };
}

/** Thrown inside the rotation transaction to roll it back. */
class NotRotatable extends Error {}

/** KeyRecords over an open, migrated database. */
export function sqliteKeys(db: Database.Database): KeyRecords {
  const s = {
    insert: db.prepare(
      `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at, overrides)
       VALUES (@id, @account_id, @name, @key_hash, @display_prefix, @created_at, @overrides)`,
    ),
    get: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`),
    all: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`),
    ofAccount: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`),
    revoke: db.prepare("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?"),
    retire: db.prepare(
      "UPDATE api_keys SET expires_at = ?, rotated_to = ? WHERE id = ? AND revoked_at IS NULL AND rotated_to IS NULL",
    ),
    overrides: db.prepare("UPDATE api_keys SET overrides = ? WHERE id = ?"),
  };
  const info = (id: string): ApiKeyInfo | undefined => {
    const r = s.get.get(id) as KeyRow | undefined;
    return r === undefined ? undefined : toKeyInfo(r);
  };

  return {
    async insertKey(k) {
      s.insert.run(keyParams(k));
      return info(k.id) as ApiKeyInfo;
    },
    async getKey(id) {
      const r = s.get.get(id) as KeyRow | undefined;
      return r === undefined ? undefined : toKeyRecord(r);
    },
    async listKeys(filter = {}) {
      const rows = filter.accountId === undefined ? s.all.all() : s.ofAccount.all(filter.accountId);
      return (rows as KeyRow[]).map(toKeyInfo);
    },
    async revokeKey(id, at) {
      s.revoke.run(at.getTime(), id);
      return info(id);
    },
    async rotateKey(oldId, replacement, oldExpiresAt) {
      const params = keyParams(replacement);
      const rotate = db.transaction((): void => {
        // The replacement goes in first because rotated_to references it.
        s.insert.run(params);
        const changed = s.retire.run(oldExpiresAt.getTime(), replacement.id, oldId).changes;
        if (changed === 0) throw new NotRotatable();
      });
      try {
        rotate.immediate();
        return true;
      } catch (err) {
        if (err instanceof NotRotatable) return false;
        throw err;
      }
    },
    async setOverrides(keyId, overrides) {
      return s.overrides.run(JSON.stringify(parseOverrides(overrides)), keyId).changes === 1;
    },
  };
}
