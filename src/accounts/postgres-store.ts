/**
 * AccountsStore on PostgreSQL (node-postgres pool), used when DATABASE_URL is set so several
 * server instances share accounts, keys and usage. Usage increments are single upserts, which
 * PostgreSQL makes atomic across connections without explicit locking.
 */
import pg from "pg";
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

/** Pool tuning; the defaults suit one server process. */
export interface PostgresStoreOptions {
  /** Most connections held open at once. */
  maxConnections?: number;
  /** How long to wait for a connection before failing the call, ms; bounds readiness probes. */
  connectTimeoutMs?: number;
  /** The schema to migrate to; tests pass extra versions to exercise upgrades. */
  migrations?: readonly Migration[];
}

// Any fixed number works; it only has to be the same in every process migrating this database.
const MIGRATION_LOCK = 0x7473_6163; // "tsac"

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

interface SessionRow {
  token_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: Date;
  expires_at: Date;
}

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

interface UsageDbRow {
  key_id: string;
  day: string;
  operation: string;
  count: string;
}

// Never `*`: password_hash must not ride along into records.
const ACCOUNT_COLUMNS = "id, name, email, created_at, is_admin, plan, origin, email_verified_at";
const SESSION_COLUMNS = "token_hash, account_id, csrf_token, created_at, expires_at";
const KEY_COLUMNS =
  "id, account_id, name, key_hash, display_prefix, created_at, revoked_at, expires_at, rotated_to, overrides, " +
  // A key has no plan of its own: every read takes its account's, so one change moves them all.
  "(SELECT a.plan FROM accounts a WHERE a.id = api_keys.account_id) AS plan";
// Text ORDER BY uses the C collation so both backends sort ids and operations byte-wise alike.
// pg turns `date` into a local-midnight Date, which shifts days west of UTC; text keeps them exact.
const USAGE_COLUMNS = "u.key_id, to_char(u.day, 'YYYY-MM-DD') AS day, u.operation, u.count";

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

function toSession(r: SessionRow): SessionRecord {
  return {
    tokenHash: r.token_hash,
    accountId: r.account_id,
    csrfToken: r.csrf_token,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
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

function toUsage(r: UsageDbRow): UsageRow {
  return { keyId: r.key_id, day: r.day, operation: r.operation, count: Number(r.count) };
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

const INSERT_KEY = `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at, overrides)
  VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${KEY_COLUMNS}`;

async function migrate(pool: pg.Pool, where: string, migrations: readonly Migration[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // Serialises concurrent openers (several instances starting together); released at COMMIT.
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_version (
         version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number }>(
      "SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_version",
    );
    const current = rows[0]?.v ?? 0;
    for (const m of pendingMigrations(migrations, current, where)) {
      await client.query(m.postgres);
      await client.query("INSERT INTO schema_version (version, description) VALUES ($1, $2)", [
        m.version,
        m.description,
      ]);
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** The database part of a URL without credentials, for messages. */
function describe(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "PostgreSQL";
  }
}

/** Connects to `url`, migrates the schema, and returns the store. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<AccountsStore> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection dropped by the server emits here; without a listener it would crash the
  // process. The next query gets a fresh connection or a proper error, so nothing is lost.
  pool.on("error", () => undefined);
  try {
    await migrate(pool, describe(url), options.migrations ?? MIGRATIONS);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return new PostgresStore(pool);
}

class PostgresStore implements AccountsStore {
  readonly kind = "postgres" as const;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {}

  private async rows<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R>(sql, values)).rows;
  }

  async createAccount(a: NewAccount): Promise<AccountRecord> {
    const [row] = await this.rows<AccountRow>(
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
  }

  async findAccountByEmail(email: string): Promise<AccountRecord | undefined> {
    const [row] = await this.rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = $1`, [
      normalizeEmail(email),
    ]);
    return row === undefined ? undefined : toAccount(row);
  }

  async getPasswordHash(accountId: string): Promise<string | null | undefined> {
    const [row] = await this.rows<{ password_hash: string | null }>(
      "SELECT password_hash FROM accounts WHERE id = $1",
      [accountId],
    );
    return row?.password_hash;
  }

  async setPasswordHash(accountId: string, hash: string | null): Promise<boolean> {
    const result = await this.pool.query("UPDATE accounts SET password_hash = $1 WHERE id = $2", [hash, accountId]);
    return result.rowCount === 1;
  }

  async setAccountPlan(accountId: string, plan: PlanId): Promise<boolean> {
    const result = await this.pool.query("UPDATE accounts SET plan = $1 WHERE id = $2", [plan, accountId]);
    return result.rowCount === 1;
  }

  async setAdmin(accountId: string, isAdmin: boolean): Promise<boolean> {
    const result = await this.pool.query("UPDATE accounts SET is_admin = $1 WHERE id = $2", [isAdmin, accountId]);
    return result.rowCount === 1;
  }

  async createEmailVerification(v: EmailVerificationRecord): Promise<void> {
    await this.pool.query(
      "INSERT INTO email_verifications (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
      [v.tokenHash, v.accountId, v.createdAt, v.expiresAt],
    );
  }

  async consumeEmailVerification(tokenHash: string, now: Date): Promise<string | undefined> {
    // One statement: the DELETE claims the token (a concurrent second use finds nothing) and the
    // UPDATE marks the account only when the claimed token was still valid.
    const [row] = await this.rows<{ id: string }>(
      `WITH spent AS (DELETE FROM email_verifications WHERE token_hash = $1 RETURNING account_id, expires_at)
       UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, $2)
       FROM spent WHERE accounts.id = spent.account_id AND spent.expires_at > $2 RETURNING accounts.id`,
      [tokenHash, now],
    );
    return row?.id;
  }

  async createSession(session: SessionRecord): Promise<void> {
    await this.pool.query(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`, [
      session.tokenHash,
      session.accountId,
      session.csrfToken,
      session.createdAt,
      session.expiresAt,
    ]);
  }

  async getSession(tokenHash: string): Promise<SessionRecord | undefined> {
    const [row] = await this.rows<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = $1`, [
      tokenHash,
    ]);
    return row === undefined ? undefined : toSession(row);
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    const result = await this.pool.query("DELETE FROM sessions WHERE token_hash = $1", [tokenHash]);
    return result.rowCount === 1;
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    const result = await this.pool.query("DELETE FROM sessions WHERE expires_at <= $1", [now]);
    return result.rowCount ?? 0;
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const [row] = await this.rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
    return row === undefined ? undefined : toAccount(row);
  }

  async findAccountsByName(name: string): Promise<AccountRecord[]> {
    const rows = await this.rows<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = $1 ORDER BY created_at, id COLLATE "C"`,
      [name],
    );
    return rows.map(toAccount);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const rows = await this.rows<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id COLLATE "C"`,
    );
    return rows.map(toAccount);
  }

  async insertKey(k: NewApiKey): Promise<ApiKeyInfo> {
    const [row] = await this.rows<KeyRow>(INSERT_KEY, keyValues(k));
    return toKeyInfo(row as KeyRow);
  }

  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return row === undefined ? undefined : toKeyRecord(row);
  }

  async listKeys(filter: { accountId?: string } = {}): Promise<ApiKeyInfo[]> {
    const order = `ORDER BY created_at, id COLLATE "C"`;
    const rows =
      filter.accountId === undefined
        ? await this.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ${order}`)
        : await this.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ${order}`, [
            filter.accountId,
          ]);
    return rows.map(toKeyInfo);
  }

  async revokeKey(id: string, at: Date): Promise<ApiKeyInfo | undefined> {
    const [row] = await this.rows<KeyRow>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 RETURNING ${KEY_COLUMNS}`,
      [at, id],
    );
    return row === undefined ? undefined : toKeyInfo(row);
  }

  async rotateKey(oldId: string, replacement: NewApiKey, oldExpiresAt: Date): Promise<boolean> {
    const client = await this.pool.connect();
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
  }

  async setOverrides(keyId: string, overrides: LimitOverrides): Promise<boolean> {
    const result = await this.pool.query("UPDATE api_keys SET overrides = $1::jsonb WHERE id = $2", [
      JSON.stringify(parseOverrides(overrides)),
      keyId,
    ]);
    return result.rowCount === 1;
  }

  async recordUsage(keyId: string, day: string, operation: string, n: number): Promise<void> {
    checkIncrement(day, operation, n);
    await this.pool.query(
      `INSERT INTO usage (key_id, day, operation, count) VALUES ($1, $2::date, $3, $4)
       ON CONFLICT (key_id, day, operation) DO UPDATE SET count = usage.count + EXCLUDED.count`,
      [keyId, day, operation, n],
    );
  }

  async usageBetween(keyId: string, fromDay: string, toDay: string): Promise<UsageRow[]> {
    checkDayRange(fromDay, toDay);
    const rows = await this.rows<UsageDbRow>(
      `SELECT ${USAGE_COLUMNS} FROM usage u
       WHERE u.key_id = $1 AND u.day BETWEEN $2::date AND $3::date ORDER BY u.day, u.operation COLLATE "C"`,
      [keyId, fromDay, toDay],
    );
    return rows.map(toUsage);
  }

  async usageByAccount(accountId: string, fromDay: string, toDay: string): Promise<UsageRow[]> {
    checkDayRange(fromDay, toDay);
    const rows = await this.rows<UsageDbRow>(
      `SELECT ${USAGE_COLUMNS} FROM usage u JOIN api_keys k ON k.id = u.key_id
       WHERE k.account_id = $1 AND u.day BETWEEN $2::date AND $3::date
       ORDER BY u.day, u.key_id COLLATE "C", u.operation COLLATE "C"`,
      [accountId, fromDay, toDay],
    );
    return rows.map(toUsage);
  }

  async accountDailyUsage(accountId: string, fromDay: string, toDay: string): Promise<AccountDayUsage[]> {
    checkDayRange(fromDay, toDay);
    const rows = await this.rows<{ day: string; operation: string; count: string }>(
      `SELECT to_char(u.day, 'YYYY-MM-DD') AS day, u.operation, SUM(u.count)::bigint AS count
       FROM usage u JOIN api_keys k ON k.id = u.key_id
       WHERE k.account_id = $1 AND u.day BETWEEN $2::date AND $3::date
       GROUP BY u.day, u.operation ORDER BY u.day, u.operation COLLATE "C"`,
      [accountId, fromDay, toDay],
    );
    return rows.map((r) => ({ day: r.day, operation: r.operation, count: Number(r.count) }));
  }

  async usageTotalsByAccount(fromDay: string, toDay: string): Promise<Map<string, number>> {
    checkDayRange(fromDay, toDay);
    const rows = await this.rows<{ account_id: string; count: string }>(
      `SELECT k.account_id, SUM(u.count)::bigint AS count FROM usage u JOIN api_keys k ON k.id = u.key_id
       WHERE u.day BETWEEN $1::date AND $2::date GROUP BY k.account_id`,
      [fromDay, toDay],
    );
    return new Map(rows.map((r) => [r.account_id, Number(r.count)]));
  }

  async schemaVersion(): Promise<number> {
    const [row] = await this.rows<{ v: number }>("SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_version");
    return row?.v ?? 0;
  }

  async ping(): Promise<void> {
    await this.pool.query("SELECT 1");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
