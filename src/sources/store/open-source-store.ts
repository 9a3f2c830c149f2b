/**
 * Chooses the source store from configuration the way the accounts store is chosen: PostgreSQL
 * when DATABASE_URL is set, SQLite in the data directory otherwise, so `sources` commands, `sync`
 * and `serve --sync` always agree on where sources live.
 */
import path from "node:path";
import { openPostgresSourceStore } from "./postgres-source-store.js";
import type { SourceStore } from "./source-store.js";
import { openSqliteSourceStore, SOURCES_SQLITE_FILE } from "./sqlite-source-store.js";

/** Opens the configured store. */
export async function openSourceStore(location: {
  dataDir: string;
  databaseUrl?: string | undefined;
}): Promise<SourceStore> {
  if (location.databaseUrl !== undefined && location.databaseUrl !== "")
    return openPostgresSourceStore(location.databaseUrl);
  return openSqliteSourceStore(path.join(location.dataDir, SOURCES_SQLITE_FILE));
}
