/**
 * AccountsStore on SQLite (better-sqlite3), the embedded default: one file in the data
 * directory, WAL mode so the server and a `threadsight keys` command can use it at the same
 * time. better-sqlite3 is synchronous; each call is short and indexed, so running it on the event
 * loop costs less than a thread hop would. Each concern's statements live in src/accounts/sqlite/.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Migration } from "./migrations.js";
import { MIGRATIONS, pendingMigrations } from "./migrations.js";
import { sqliteAccounts } from "./sqlite/sqlite-accounts.js";
import { sqliteKeys } from "./sqlite/sqlite-keys.js";
import { sqliteSessions } from "./sqlite/sqlite-sessions.js";
import { sqliteUsage } from "./sqlite/sqlite-usage.js";
import type { AccountsStore } from "./store.js";

/** The store's file name inside the data directory. */
export const SQLITE_FILE_NAME = "accounts.sqlite";

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
    return composeStore(db);
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The store as the union of its concerns over one database handle. */
function composeStore(db: Database.Database): AccountsStore {
  const version = db.prepare("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version");
  const ping = db.prepare("SELECT 1 AS ok");
  return {
    kind: "sqlite",
    ...sqliteAccounts(db),
    ...sqliteSessions(db),
    ...sqliteKeys(db),
    ...sqliteUsage(db),
    async schemaVersion() {
      return (version.get() as { v: number }).v;
    },
    async ping() {
      ping.get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
