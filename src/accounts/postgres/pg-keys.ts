/** The keys part of the PostgreSQL store. */
import type pg from "pg";
import type { PlanId } from "../caller.js";
import type { ApiKeyInfo, ApiKeyRecord, KeyRecords, NewApiKey } from "../key-records.js";
import { withoutHash } from "../key-records.js";
import { parseOverrides } from "../limit-overrides.js";
import { pgRows } from "./pg-rows.js";

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  plan: string;
  key_hash: string;
  display_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  rotated_to: string | null;
  overrides: unknown;
}

const KEY_COLUMNS =
  "id, account_id, name, key_hash, display_prefix, created_at, revoked_at, expires_at, rotated_to, overrides, " +
  // A key has no plan of its own: every read takes its account's, so one change moves them all.
  "(SELECT a.plan FROM accounts a WHERE a.id = api_keys.account_id) AS plan";

const INSERT_KEY = `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at, overrides)
  VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${KEY_COLUMNS}`;

function toKeyRecord(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    plan: r.plan as PlanId,
    keyHash: r.key_hash,
    displayPrefix: r.display_prefix,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    expiresAt: r.expires_at,
    rotatedTo: r.rotated_to,
    overrides: parseOverrides(r.overrides),
  };
}

function toKeyInfo(r: KeyRow): ApiKeyInfo {
  return withoutHash(toKeyRecord(r));
}

function keyValues(k: NewApiKey): unknown[] {
  return [
    k.id,
    k.accountId,
    k.name,
    k.keyHash,
    k.displayPrefix,
    k.createdAt,
    JSON.stringify(parseOverrides(k.overrides)),
  ];
}

/** KeyRecords over a pool to a migrated database. */
export function pgKeys(pool: pg.Pool): KeyRecords {
  const rows = pgRows(pool);
  return {
    async insertKey(k) {
      const [row] = await rows<KeyRow>(INSERT_KEY, keyValues(k));
      return toKeyInfo(row as KeyRow);
    },
    async getKey(id) {
      const [row] = await rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
      return row === undefined ? undefined : toKeyRecord(row);
    },
    async listKeys(filter = {}) {
      const order = `ORDER BY created_at, id COLLATE "C"`;
      const found =
        filter.accountId === undefined
          ? await rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ${order}`)
          : await rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ${order}`, [
              filter.accountId,
            ]);
      return found.map(toKeyInfo);
    },
    async revokeKey(id, at) {
      const [row] = await rows<KeyRow>(
        `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 RETURNING ${KEY_COLUMNS}`,
        [at, id],
      );
      return row === undefined ? undefined : toKeyInfo(row);
    },
    async rotateKey(oldId, replacement, oldExpiresAt) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        // The replacement goes in first because rotated_to references it.
        await client.query(INSERT_KEY, keyValues(replacement));
        const retired = await client.query(
          "UPDATE api_keys SET expires_at = $1, rotated_to = $2 WHERE id = $3 AND revoked_at IS NULL AND rotated_to IS NULL",
          [oldExpiresAt, replacement.id, oldId],
        );
        if (retired.rowCount !== 1) {
          await client.query("ROLLBACK");
          return false;
        }
        await client.query("COMMIT");
        return true;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async setOverrides(keyId, overrides) {
      const result = await pool.query("UPDATE api_keys SET overrides = $1::jsonb WHERE id = $2", [
        JSON.stringify(parseOverrides(overrides)),
        keyId,
      ]);
      return result.rowCount === 1;
    },
  };
}
