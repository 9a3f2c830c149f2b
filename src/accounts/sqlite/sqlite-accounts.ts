/** The accounts part of the SQLite store: accounts, password hashes and e-mail verifications. */
import type Database from "better-sqlite3";
import type { AccountOrigin, AccountRecord, AccountRecords, NewAccount } from "../account-records.js";
import { normalizeEmail } from "../account-records.js";
import type { PlanId } from "../caller.js";

interface AccountRow {
  id: string;
  name: string;
  email: string | null;
  created_at: number;
  is_admin: number;
  plan: string;
  origin: string;
  email_verified_at: number | null;
}

// Never `*`: password_hash must not ride along into records.
const ACCOUNT_COLUMNS = "id, name, email, created_at, is_admin, plan, origin, email_verified_at";

function toAccount(r: AccountRow): AccountRecord {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    createdAt: new Date(r.created_at),
    isAdmin: r.is_admin === 1,
    plan: r.plan as PlanId,
    origin: r.origin as AccountOrigin,
    emailVerifiedAt: r.email_verified_at === null ? null : new Date(r.email_verified_at),
  };
}

/** AccountRecords over an open, migrated database; statements are prepared at once. */
export function sqliteAccounts(db: Database.Database): AccountRecords {
  const s = {
    insert: db.prepare(
      `INSERT INTO accounts (id, name, email, created_at, is_admin, plan, password_hash, origin, email_verified_at)
       VALUES (@id, @name, @email, @created_at, @is_admin, @plan, @password_hash, @origin, @email_verified_at)`,
    ),
    get: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`),
    byName: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = ? ORDER BY created_at, id`),
    all: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`),
    byEmail: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = ?`),
    getPassword: db.prepare("SELECT password_hash FROM accounts WHERE id = ?"),
    setPassword: db.prepare("UPDATE accounts SET password_hash = ? WHERE id = ?"),
    setPlan: db.prepare("UPDATE accounts SET plan = ? WHERE id = ?"),
    setAdmin: db.prepare("UPDATE accounts SET is_admin = ? WHERE id = ?"),
    insertVerification: db.prepare(
      `INSERT INTO email_verifications (token_hash, account_id, created_at, expires_at)
       VALUES (@token_hash, @account_id, @created_at, @expires_at)`,
    ),
    takeVerification: db.prepare(
      "DELETE FROM email_verifications WHERE token_hash = ? RETURNING account_id, expires_at",
    ),
    markVerified: db.prepare("UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, ?) WHERE id = ?"),
  };
  const one = (r: unknown): AccountRecord | undefined => (r === undefined ? undefined : toAccount(r as AccountRow));

  return {
    async createAccount(a: NewAccount): Promise<AccountRecord> {
      const row: AccountRow = {
        id: a.id,
        name: a.name,
        email: a.email === undefined || a.email === null ? null : normalizeEmail(a.email),
        created_at: a.createdAt.getTime(),
        is_admin: a.isAdmin === true ? 1 : 0,
        plan: a.plan ?? "free",
        origin: a.origin ?? "operator",
        email_verified_at: null,
      };
      s.insert.run({ ...row, password_hash: a.passwordHash ?? null });
      return toAccount(row);
    },
    async getAccount(id) {
      return one(s.get.get(id));
    },
    async findAccountsByName(name) {
      return (s.byName.all(name) as AccountRow[]).map(toAccount);
    },
    async listAccounts() {
      return (s.all.all() as AccountRow[]).map(toAccount);
    },
    async findAccountByEmail(email) {
      return one(s.byEmail.get(normalizeEmail(email)));
    },
    async getPasswordHash(accountId) {
      const r = s.getPassword.get(accountId) as { password_hash: string | null } | undefined;
      return r?.password_hash;
    },
    async setPasswordHash(accountId, hash) {
      return s.setPassword.run(hash, accountId).changes === 1;
    },
    async setAccountPlan(accountId, plan) {
      return s.setPlan.run(plan, accountId).changes === 1;
    },
    async setAdmin(accountId, isAdmin) {
      return s.setAdmin.run(isAdmin ? 1 : 0, accountId).changes === 1;
    },
    async createEmailVerification(v) {
      s.insertVerification.run({
        token_hash: v.tokenHash,
        account_id: v.accountId,
        created_at: v.createdAt.getTime(),
        expires_at: v.expiresAt.getTime(),
      });
    },
    async consumeEmailVerification(tokenHash, now) {
      const spend = db.transaction((): string | undefined => {
        const r = s.takeVerification.get(tokenHash) as { account_id: string; expires_at: number } | undefined;
        if (r === undefined || r.expires_at <= now.getTime()) return undefined;
        s.markVerified.run(now.getTime(), r.account_id);
        return r.account_id;
      });
      return spend.immediate();
    },
  };
}
