/**
 * Versioned schema of the PostgreSQL monitors store, applied at open inside one transaction under
 * an advisory lock (several instances starting together migrate once), in the manner of the
 * accounts store. Entries are append-only: a released migration is never edited.
 *
 * Times are bigint milliseconds, as in the SQLite store, so both stores hand out the same
 * numbers. Event sequence numbers come from an identity column; appends take a lock first so
 * numbers commit in the order they were taken (see pg-monitor-store.ts).
 */
import type pg from "pg";
import { migrateSchema } from "../../postgres/versioned-schema.js";

/** One schema version. */
export interface MonitorMigration {
  version: number;
  description: string;
  sql: string;
}

/** Every migration, in version order. */
export const MONITOR_MIGRATIONS: readonly MonitorMigration[] = [
  {
    version: 1,
    description: "monitors, monitor_events, monitor_deliveries, monitor_attempts",
    sql: `
      CREATE TABLE monitors (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        spec text NOT NULL,
        paused boolean NOT NULL,
        paused_reason text NOT NULL,
        secret text NOT NULL,
        previous_secret text NOT NULL,
        previous_secret_until bigint NOT NULL,
        created bigint NOT NULL,
        updated bigint NOT NULL
      );
      CREATE INDEX monitors_account ON monitors (account_id, created, id);
      CREATE TABLE monitor_meta (k text PRIMARY KEY, v bigint NOT NULL);
      INSERT INTO monitor_meta VALUES ('version', 0);
      CREATE TABLE monitor_events (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        monitor_id text NOT NULL,
        post_id text NOT NULL,
        payload text NOT NULL,
        created bigint NOT NULL,
        UNIQUE (monitor_id, post_id)
      );
      CREATE INDEX monitor_events_monitor ON monitor_events (monitor_id, seq);
      CREATE TABLE monitor_deliveries (
        seq bigint NOT NULL,
        monitor_id text NOT NULL,
        channel_index integer NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
        attempts integer NOT NULL,
        next_at bigint NOT NULL,
        PRIMARY KEY (seq, channel_index)
      );
      CREATE INDEX monitor_deliveries_lane ON monitor_deliveries (monitor_id, channel_index, seq) WHERE state = 'pending';
      CREATE INDEX monitor_deliveries_due ON monitor_deliveries (next_at) WHERE state = 'pending';
      CREATE TABLE monitor_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        seq bigint NOT NULL,
        monitor_id text NOT NULL,
        channel text NOT NULL,
        attempt integer NOT NULL,
        status text NOT NULL,
        response_code integer NOT NULL,
        latency_ms integer NOT NULL,
        at bigint NOT NULL,
        error text NOT NULL
      );
      CREATE INDEX monitor_attempts_monitor ON monitor_attempts (monitor_id, id);
    `,
  },
  {
    version: 2,
    description: "monitor_deliveries.window_start: where a deferred delivery's retry window starts",
    // 0 means "the event's creation", as in the SQLite store.
    sql: "ALTER TABLE monitor_deliveries ADD COLUMN window_start bigint NOT NULL DEFAULT 0;",
  },
];

// Any fixed number works; it only has to be the same in every process migrating this database.
const MIGRATION_LOCK = 0x7473_6d6f; // "tsmo"

/** The highest version in a migration list. */
function latest(migrations: readonly MonitorMigration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/** Brings the database at `pool` to the newest version; refuses one written by a newer build. */
export async function migrateMonitors(
  pool: pg.Pool,
  where: string,
  migrations: readonly MonitorMigration[] = MONITOR_MIGRATIONS,
): Promise<void> {
  await migrateSchema(pool, {
    lock: MIGRATION_LOCK,
    table: "monitor_schema_version",
    pending: (current) => {
      if (current > latest(migrations))
        throw new Error(
          `${where} has monitors schema version ${current}, newer than this build knows (${latest(migrations)}); upgrade threadsight`,
        );
      return [...migrations]
        .filter((x) => x.version > current)
        .sort((a, b) => a.version - b.version)
        .map((m) => ({ version: m.version, description: m.description, sql: m.sql }));
    },
  });
}
