/** The accounts part of the PostgreSQL store: accounts, password hashes and e-mail verifications. */
import type pg from "pg";
import type { AccountOrigin, AccountRecord, AccountRecords } from "../account-records.js";
import { normalizeEmail } from "../account-records.js";
import type { PlanId } from "../caller.js";
import { pgRows } from "./pg-rows.js";

interface AccountRow {
  id: string;
  name: string;
  email: string | null;
  created_at: Date;
  is_admin: boolean;
  plan: string;
  origin: string;
  email_verified_at: Date | null;
}

// Never `*`: password_hash must not ride along into records.
const ACCOUNT_COLUMNS = "id, name, email, created_at, is_admin, plan, origin, email_verified_at";

function toAccount(r: AccountRow): AccountRecord {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    createdAt: r.created_at,
    isAdmin: r.is_admin,
    plan: r.plan as PlanId,
    origin: r.origin as AccountOrigin,
    emailVerifiedAt: r.email_verified_at,
  };
}

/** AccountRecords over a pool to a migrated database. */
export function pgAccounts(pool: pg.Pool): AccountRecords {
  const rows = pgRows(pool);
  const changedOne = async (sql: string, values: unknown[]): Promise<boolean> =>
    (await pool.query(sql, values)).rowCount === 1;
  return {
    async createAccount(a) {
      const [row] = await rows<AccountRow>(
        `INSERT INTO accounts (id, name, email, created_at, is_admin, plan, password_hash, origin)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ACCOUNT_COLUMNS}`,
        [
          a.id,
          a.name,
          a.email === undefined || a.email === null ? null : normalizeEmail(a.email),
          a.createdAt,
          a.isAdmin === true,
          a.plan ?? "free",
          a.passwordHash ?? null,
          a.origin ?? "operator",
        ],
      );
      return toAccount(row as AccountRow);
    },
    async getAccount(id) {
      const [row] = await rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
      return row === undefined ? undefined : toAccount(row);
    },
    async findAccountsByName(name) {
      const found = await rows<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = $1 ORDER BY created_at, id COLLATE "C"`,
        [name],
      );
      return found.map(toAccount);
    },
    async listAccounts() {
      const all = await rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id COLLATE "C"`);
      return all.map(toAccount);
    },
    async findAccountByEmail(email) {
      const [row] = await rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = $1`, [
        normalizeEmail(email),
      ]);
      return row === undefined ? undefined : toAccount(row);
    },
    async getPasswordHash(accountId) {
      const [row] = await rows<{ password_hash: string | null }>("SELECT password_hash FROM accounts WHERE id = $1", [
        accountId,
      ]);
      return row?.password_hash;
    },
    async setPasswordHash(accountId, hash) {
      return changedOne("UPDATE accounts SET password_hash = $1 WHERE id = $2", [hash, accountId]);
    },
    async setAccountPlan(accountId, plan) {
      return changedOne("UPDATE accounts SET plan = $1 WHERE id = $2", [plan, accountId]);
    },
    async setAdmin(accountId, isAdmin) {
      return changedOne("UPDATE accounts SET is_admin = $1 WHERE id = $2", [isAdmin, accountId]);
    },
    async createEmailVerification(v) {
      await pool.query(
        "INSERT INTO email_verifications (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        [v.tokenHash, v.accountId, v.createdAt, v.expiresAt],
      );
    },
    async consumeEmailVerification(tokenHash, now) {
      // One statement: the DELETE claims the token (a concurrent second use finds nothing) and the
      // UPDATE marks the account only when the claimed token was still valid.
      const [row] = await rows<{ id: string }>(
        `WITH spent AS (DELETE FROM email_verifications WHERE token_hash = $1 RETURNING account_id, expires_at)
         UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, $2)
         FROM spent WHERE accounts.id = spent.account_id AND spent.expires_at > $2 RETURNING accounts.id`,
        [tokenHash, now],
      );
      return row?.id;
    },
  };
}
