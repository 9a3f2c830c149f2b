/**
 * Chooses the accounts store from configuration: PostgreSQL when a database URL is given,
 * otherwise SQLite in the data directory. Callers (server, CLI, portal) never pick one by hand,
 * so they cannot disagree about where keys live.
 */
import path from "node:path";
import { openPostgresStore } from "./postgres-store.js";
import { openSqliteStore, SQLITE_FILE_NAME } from "./sqlite-store.js";
import type { AccountsStore } from "./store.js";

/** Where the store lives; the two fields of Config that matter here. */
export interface AccountsStoreLocation {
  dataDir: string;
  databaseUrl?: string | undefined;
}

/** Opens and migrates the configured store. */
export async function openAccountsStore(location: AccountsStoreLocation): Promise<AccountsStore> {
  if (location.databaseUrl !== undefined && location.databaseUrl !== "") {
    return openPostgresStore(location.databaseUrl);
  }
  return openSqliteStore(path.join(location.dataDir, SQLITE_FILE_NAME));
}
