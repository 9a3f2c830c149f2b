/**
 * AccountsStore on SQLite (better-sqlite3), the embedded default: one file in the data
 * directory, WAL mode so the server and a `threadsight keys` command can use it at the same
 * time. better-sqlite3 is synchronous; each call is short and indexed, so running it on the event
 * loop costs less than a thread hop would.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { LimitOverrides, PlanId } from "./caller.js";
import { parseOverrides } from "./limit-overrides.js";
import type { Migration } from "./migrations.js";
import { MIGRATIONS, pendingMigrations } from "./migrations.js";
import type {
  AccountDayUsage,
  AccountOrigin,
  AccountRecord,
  AccountsStore,
  ApiKeyInfo,
  ApiKeyRecord,
  EmailVerificationRecord,
  NewAccount,
  NewApiKey,
  SessionRecord,
  UsageRow,
} from "./store.js";
import { normalizeEmail, withoutHash } from "./store.js";
import { checkDayRange, checkIncrement } from "./usage-args.js";

/** The store's file name inside the data directory. */
export const SQLITE_FILE_NAME = "accounts.sqlite";

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

interface SessionRow {
  token_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

// Never `*`: password_hash must not ride along into records.
const ACCOUNT_COLUMNS = "id, name, email, created_at, is_admin, plan, origin, email_verified_at";

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

function toSession(r: SessionRow): SessionRecord {
  return {
    tokenHash: r.token_hash,
    accountId: r.account_id,
    csrfToken: r.csrf_token,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
  };
}

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

function migrate(db: Database.Database, file: string, migrations: readonly Migration[]): void {
  // IMMEDIATE takes the write lock before reading the version, so two processes opening a
  // fresh file at once cannot both decide to apply version 1.
  db.transaction(() => {
    db.exec(
      `CREATE TABLE IF NOT EXISTS schema_version (
         version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)`,
    );
    const current = (db.prepare("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version").get() as { v: number }).v;
    for (const m of pendingMigrations(migrations, current, file)) {
      db.exec(m.sqlite);
      db.prepare("INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.description,
        Date.now(),
      );
    }
  }).immediate();
}

/** Options of openSqliteStore. */
export interface SqliteStoreOptions {
  /** The schema to migrate to; tests pass extra versions to exercise upgrades. */
  migrations?: readonly Migration[];
}

/** Opens (creating and migrating as needed) the SQLite store at `file`. */
export async function openSqliteStore(file: string, options: SqliteStoreOptions = {}): Promise<AccountsStore> {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    // Another process (the CLI next to the server) may hold the write lock for a moment.
    db.pragma("busy_timeout = 5000");
    db.pragma("foreign_keys = ON");
    // WAL with NORMAL stays consistent after a crash; it can only lose the last commits on
    // power loss, which for usage counters is an acceptable trade for fewer fsyncs per call.
    db.pragma("synchronous = NORMAL");
    migrate(db, file, options.migrations ?? MIGRATIONS);
    // Statements are prepared here, so a schema missing a column fails now, not mid-request.
    return new SqliteStore(db);
  } catch (err) {
    db.close();
    throw err;
  }
}

class SqliteStore implements AccountsStore {
  readonly kind = "sqlite" as const;
  private readonly s;

  constructor(private readonly db: Database.Database) {
    this.s = {
      insertAccount: db.prepare(
        `INSERT INTO accounts (id, name, email, created_at, is_admin, plan, password_hash, origin, email_verified_at)
         VALUES (@id, @name, @email, @created_at, @is_admin, @plan, @password_hash, @origin, @email_verified_at)`,
      ),
      getAccount: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`),
      accountsByName: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = ? ORDER BY created_at, id`),
      allAccounts: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`),
      accountByEmail: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = ?`),
      getPassword: db.prepare("SELECT password_hash FROM accounts WHERE id = ?"),
      setPassword: db.prepare("UPDATE accounts SET password_hash = ? WHERE id = ?"),
      setAccountPlan: db.prepare("UPDATE accounts SET plan = ? WHERE id = ?"),
      setAdmin: db.prepare("UPDATE accounts SET is_admin = ? WHERE id = ?"),
      insertVerification: db.prepare(
        `INSERT INTO email_verifications (token_hash, account_id, created_at, expires_at)
         VALUES (@token_hash, @account_id, @created_at, @expires_at)`,
      ),
      takeVerification: db.prepare(
        "DELETE FROM email_verifications WHERE token_hash = ? RETURNING account_id, expires_at",
      ),
      markVerified: db.prepare("UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, ?) WHERE id = ?"),
      insertSession: db.prepare(
        `INSERT INTO sessions (token_hash, account_id, csrf_token, created_at, expires_at)
         VALUES (@token_hash, @account_id, @csrf_token, @created_at, @expires_at)`,
      ),
      getSession: db.prepare("SELECT * FROM sessions WHERE token_hash = ?"),
      deleteSession: db.prepare("DELETE FROM sessions WHERE token_hash = ?"),
      deleteExpired: db.prepare("DELETE FROM sessions WHERE expires_at <= ?"),
      insertKey: db.prepare(
        `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at, overrides)
         VALUES (@id, @account_id, @name, @key_hash, @display_prefix, @created_at, @overrides)`,
      ),
      getKey: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`),
      allKeys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`),
      accountKeys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`),
      revoke: db.prepare("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?"),
      retire: db.prepare(
        "UPDATE api_keys SET expires_at = ?, rotated_to = ? WHERE id = ? AND revoked_at IS NULL AND rotated_to IS NULL",
      ),
      overrides: db.prepare("UPDATE api_keys SET overrides = ? WHERE id = ?"),
      addUsage: db.prepare(
        `INSERT INTO usage (key_id, day, operation, count) VALUES (?, ?, ?, ?)
         ON CONFLICT (key_id, day, operation) DO UPDATE SET count = count + excluded.count`,
      ),
      keyUsage: db.prepare(
        "SELECT key_id, day, operation, count FROM usage WHERE key_id = ? AND day BETWEEN ? AND ? ORDER BY day, operation",
      ),
      accountUsage: db.prepare(
        `SELECT u.key_id, u.day, u.operation, u.count FROM usage u JOIN api_keys k ON k.id = u.key_id
         WHERE k.account_id = ? AND u.day BETWEEN ? AND ? ORDER BY u.day, u.key_id, u.operation`,
      ),
      accountDaily: db.prepare(
        `SELECT u.day, u.operation, SUM(u.count) AS count FROM usage u JOIN api_keys k ON k.id = u.key_id
         WHERE k.account_id = ? AND u.day BETWEEN ? AND ? GROUP BY u.day, u.operation ORDER BY u.day, u.operation`,
      ),
      accountTotals: db.prepare(
        `SELECT k.account_id, SUM(u.count) AS count FROM usage u JOIN api_keys k ON k.id = u.key_id
         WHERE u.day BETWEEN ? AND ? GROUP BY k.account_id`,
      ),
      version: db.prepare("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version"),
      ping: db.prepare("SELECT 1 AS ok"),
    };
  }

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
    this.s.insertAccount.run({ ...row, password_hash: a.passwordHash ?? null });
    return toAccount(row);
  }

  async findAccountByEmail(email: string): Promise<AccountRecord | undefined> {
    const r = this.s.accountByEmail.get(normalizeEmail(email)) as AccountRow | undefined;
    return r === undefined ? undefined : toAccount(r);
  }

  async getPasswordHash(accountId: string): Promise<string | null | undefined> {
    const r = this.s.getPassword.get(accountId) as { password_hash: string | null } | undefined;
    return r?.password_hash;
  }

  async setPasswordHash(accountId: string, hash: string | null): Promise<boolean> {
    return this.s.setPassword.run(hash, accountId).changes === 1;
  }

  async setAccountPlan(accountId: string, plan: PlanId): Promise<boolean> {
    return this.s.setAccountPlan.run(plan, accountId).changes === 1;
  }

  async setAdmin(accountId: string, isAdmin: boolean): Promise<boolean> {
    return this.s.setAdmin.run(isAdmin ? 1 : 0, accountId).changes === 1;
  }

  async createEmailVerification(v: EmailVerificationRecord): Promise<void> {
    this.s.insertVerification.run({
      token_hash: v.tokenHash,
      account_id: v.accountId,
      created_at: v.createdAt.getTime(),
      expires_at: v.expiresAt.getTime(),
    });
  }

  async consumeEmailVerification(tokenHash: string, now: Date): Promise<string | undefined> {
    const spend = this.db.transaction((): string | undefined => {
      const r = this.s.takeVerification.get(tokenHash) as { account_id: string; expires_at: number } | undefined;
      if (r === undefined || r.expires_at <= now.getTime()) return undefined;
      this.s.markVerified.run(now.getTime(), r.account_id);
      return r.account_id;
    });
    return spend.immediate();
  }

  async createSession(session: SessionRecord): Promise<void> {
    this.s.insertSession.run({
      token_hash: session.tokenHash,
      account_id: session.accountId,
      csrf_token: session.csrfToken,
      created_at: session.createdAt.getTime(),
      expires_at: session.expiresAt.getTime(),
    });
  }

  async getSession(tokenHash: string): Promise<SessionRecord | undefined> {
    const r = this.s.getSession.get(tokenHash) as SessionRow | undefined;
    return r === undefined ? undefined : toSession(r);
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    return this.s.deleteSession.run(tokenHash).changes === 1;
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    return this.s.deleteExpired.run(now.getTime()).changes;
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const r = this.s.getAccount.get(id) as AccountRow | undefined;
    return r === undefined ? undefined : toAccount(r);
  }

  async findAccountsByName(name: string): Promise<AccountRecord[]> {
    return (this.s.accountsByName.all(name) as AccountRow[]).map(toAccount);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return (this.s.allAccounts.all() as AccountRow[]).map(toAccount);
  }

  private keyParams(k: NewApiKey): Record<string, unknown> {
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

  async insertKey(k: NewApiKey): Promise<ApiKeyInfo> {
    this.s.insertKey.run(this.keyParams(k));
    return toKeyInfo(this.s.getKey.get(k.id) as KeyRow);
  }

  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    const r = this.s.getKey.get(id) as KeyRow | undefined;
    return r === undefined ? undefined : toKeyRecord(r);
  }

  async listKeys(filter: { accountId?: string } = {}): Promise<ApiKeyInfo[]> {
    const rows = filter.accountId === undefined ? this.s.allKeys.all() : this.s.accountKeys.all(filter.accountId);
    return (rows as KeyRow[]).map(toKeyInfo);
  }

  async revokeKey(id: string, at: Date): Promise<ApiKeyInfo | undefined> {
    this.s.revoke.run(at.getTime(), id);
    const r = this.s.getKey.get(id) as KeyRow | undefined;
    return r === undefined ? undefined : toKeyInfo(r);
  }

  async rotateKey(oldId: string, replacement: NewApiKey, oldExpiresAt: Date): Promise<boolean> {
    const params = this.keyParams(replacement);
    const rotate = this.db.transaction((): void => {
      // The replacement goes in first because rotated_to references it.
      this.s.insertKey.run(params);
      const changed = this.s.retire.run(oldExpiresAt.getTime(), replacement.id, oldId).changes;
      if (changed === 0) throw new NotRotatable();
    });
    try {
      rotate.immediate();
      return true;
    } catch (err) {
      if (err instanceof NotRotatable) return false;
      throw err;
    }
  }

  async setOverrides(keyId: string, overrides: LimitOverrides): Promise<boolean> {
    return this.s.overrides.run(JSON.stringify(parseOverrides(overrides)), keyId).changes === 1;
  }

  async recordUsage(keyId: string, day: string, operation: string, n: number): Promise<void> {
    checkIncrement(day, operation, n);
    this.s.addUsage.run(keyId, day, operation, n);
  }

  async usageBetween(keyId: string, fromDay: string, toDay: string): Promise<UsageRow[]> {
    checkDayRange(fromDay, toDay);
    return (this.s.keyUsage.all(keyId, fromDay, toDay) as UsageDbRow[]).map(toUsage);
  }

  async usageByAccount(accountId: string, fromDay: string, toDay: string): Promise<UsageRow[]> {
    checkDayRange(fromDay, toDay);
    return (this.s.accountUsage.all(accountId, fromDay, toDay) as UsageDbRow[]).map(toUsage);
  }

  async accountDailyUsage(accountId: string, fromDay: string, toDay: string): Promise<AccountDayUsage[]> {
    checkDayRange(fromDay, toDay);
    return this.s.accountDaily.all(accountId, fromDay, toDay) as AccountDayUsage[];
  }

  async usageTotalsByAccount(fromDay: string, toDay: string): Promise<Map<string, number>> {
    checkDayRange(fromDay, toDay);
    const rows = this.s.accountTotals.all(fromDay, toDay) as { account_id: string; count: number }[];
    return new Map(rows.map((r) => [r.account_id, r.count]));
  }

  async schemaVersion(): Promise<number> {
    return (this.s.version.get() as { v: number }).v;
  }

  async ping(): Promise<void> {
    this.s.ping.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

interface UsageDbRow {
  key_id: string;
  day: string;
  operation: string;
  count: number;
}

function toUsage(r: UsageDbRow): UsageRow {
  return { keyId: r.key_id, day: r.day, operation: r.operation, count: r.count };
}

/** Thrown inside the rotation transaction to roll it back. */
class NotRotatable extends Error {}
