/**
 * AccountsStore on PostgreSQL (node-postgres pool), used when DATABASE_URL is set so several
 * server instances share accounts, keys and usage. Usage increments are single upserts, which
 * PostgreSQL makes atomic across connections without explicit locking. Each concern's statements
 * live in src/accounts/postgres/.
 */
import pg from "pg";
import type { Migration } from "./migrations.js";
import { MIGRATIONS, pendingMigrations } from "./migrations.js";
import { pgAccounts } from "./postgres/pg-accounts.js";
import { pgKeys } from "./postgres/pg-keys.js";
import { pgSessions } from "./postgres/pg-sessions.js";
import { pgUsage } from "./postgres/pg-usage.js";
import type { AccountsStore } from "./store.js";

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
  return composeStore(pool);
}

/** The store as the union of its concerns over one pool. */
function composeStore(pool: pg.Pool): AccountsStore {
  let closed = false;
  return {
    kind: "postgres",
    ...pgAccounts(pool),
    ...pgSessions(pool),
    ...pgKeys(pool),
    ...pgUsage(pool),
    async schemaVersion() {
      const { rows } = await pool.query<{ v: number }>(
        "SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_version",
      );
      return rows[0]?.v ?? 0;
    },
    async ping() {
      await pool.query("SELECT 1");
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
