/**
 * AccountsStore on PostgreSQL (node-postgres pool), used when DATABASE_URL is set so several
 * server instances share accounts, keys and usage. Usage increments are single upserts, which
 * PostgreSQL makes atomic across connections without explicit locking. Each concern's statements
 * live in src/accounts/postgres/.
 */
import pg from "pg";
import { postgresLabel } from "../postgres/url-label.js";
import type { VersionedSchema } from "../postgres/versioned-schema.js";
import { migrateSchema, recordedVersion } from "../postgres/versioned-schema.js";
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

/** The accounts schema as PostgreSQL versions it; pending steps and the newer-database refusal are shared with SQLite. */
function accountsSchema(where: string, migrations: readonly Migration[]): VersionedSchema {
  return {
    lock: MIGRATION_LOCK,
    table: "schema_version",
    pending: (current) =>
      pendingMigrations(migrations, current, where).map((m) => ({
        version: m.version,
        description: m.description,
        sql: m.postgres,
      })),
  };
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
    await migrateSchema(pool, accountsSchema(postgresLabel(url), options.migrations ?? MIGRATIONS));
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
      return recordedVersion(pool, "schema_version");
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
