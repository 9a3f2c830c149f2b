/**
 * Counter stores without Redis: in-process memory (the per-minute windows of a single instance),
 * SQLite in the data directory (quota counters that survive a restart), and PostgreSQL (the same,
 * shared by every instance using the database). SQLite's upsert runs in one transaction, so
 * several processes on one file stay exact too.
 */

import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { RateLimiterPostgres, RateLimiterSQLite } from "rate-limiter-flexible";
import type { CounterStore } from "./counter.js";
import { CounterCache, LimiterCounter } from "./counter.js";
import { MemoryLimiter } from "./memory-limiter.js";
import { SharedWindowCounter, UNBOUNDED_POINTS } from "./shared-window-counter.js";

/** Name of the counters table in SQLite and PostgreSQL. */
export const COUNTERS_TABLE = "limit_counters";

/** File holding the SQLite counters, inside the data directory. */
export const SQLITE_COUNTERS_FILE = "limits.sqlite";

/**
 * Counters in this process's memory; gone on restart. Counters of one window length share one
 * window per key whatever their limits (see SharedWindowCounter), as in the other stores.
 */
export function memoryCounterStore(keyPrefix: string): CounterStore {
  const windows = new Map<number, MemoryLimiter>();
  const windowOf = (duration: number): MemoryLimiter => {
    let limiter = windows.get(duration);
    if (limiter === undefined) {
      limiter = new MemoryLimiter({ keyPrefix, points: UNBOUNDED_POINTS, duration });
      windows.set(duration, limiter);
    }
    return limiter;
  };
  const cache = new CounterCache((points, duration) => new SharedWindowCounter(windowOf(duration), points));
  return {
    kind: "memory",
    counter: (points, duration) => cache.get(points, duration),
    close: async () => {},
  };
}

/**
 * What RateLimiterSQLite uses of a better-sqlite3 database, with statements prepared once.
 * The limiter calls `prepare(sql)` on every consume, reward and read; compiling the same upsert
 * again on every metered call cost more than running it. Its statements are a handful of fixed
 * texts (values are bound parameters), so the cache stays that small; the SQL, its parameters
 * and the transaction around each upsert are the limiter's own, unchanged.
 */
export function preparedOnce(db: Database.Database): Pick<Database.Database, "prepare" | "transaction"> {
  const statements = new Map<string, Database.Statement>();
  return {
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    transaction: (fn) => db.transaction(fn),
  } as Pick<Database.Database, "prepare" | "transaction">;
}

/** Counters in `<dataDir>/limits.sqlite` (created when missing). */
export function sqliteCounterStore(dataDir: string, keyPrefix: string): CounterStore {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, SQLITE_COUNTERS_FILE));
  db.pragma("journal_mode = WAL");
  // WAL + NORMAL: no fsync per counted call (which cost ~0.7 ms each); a process crash loses
  // nothing, a power loss may lose the last moments of counts: the database stays consistent.
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  // The layout rate-limiter-flexible expects; created here, synchronously, because its own
  // creation is asynchronous and a consume issued before it finishes is refused.
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${COUNTERS_TABLE} (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)`,
  );
  const client = preparedOnce(db);
  const cache = new CounterCache((points, duration) => {
    const limiter = new RateLimiterSQLite({
      storeClient: client,
      storeType: "better-sqlite3",
      tableName: COUNTERS_TABLE,
      tableCreated: true,
      keyPrefix,
      points,
      duration,
    });
    return new LimiterCounter(limiter, points);
  });
  return {
    kind: "sqlite",
    counter: (points, duration) => cache.get(points, duration),
    close: async () => {
      db.close();
    },
  };
}

/** Counters in PostgreSQL; resolves once the table exists. */
export async function postgresCounterStore(databaseUrl: string, keyPrefix: string): Promise<CounterStore> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, connectionTimeoutMillis: 5_000 });
  // An idle connection dropped by the server (a PostgreSQL restart) emits here; without a
  // listener it would crash the process. The next query reconnects or fails as a store error.
  pool.on("error", () => undefined);
  const common = { storeClient: pool, storeType: "pool", tableName: COUNTERS_TABLE, keyPrefix };
  try {
    await new Promise<void>((resolve, reject) => {
      new RateLimiterPostgres({ ...common, points: 1, duration: 1 }, (err?: unknown) =>
        err ? reject(err) : resolve(),
      );
    });
  } catch (err) {
    await pool.end();
    throw err;
  }
  const cache = new CounterCache(
    (points, duration) =>
      new LimiterCounter(new RateLimiterPostgres({ ...common, tableCreated: true, points, duration }), points),
  );
  return {
    kind: "postgres",
    counter: (points, duration) => cache.get(points, duration),
    close: () => pool.end(),
  };
}
