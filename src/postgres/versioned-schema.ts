/**
 * A schema kept at a version number in PostgreSQL: a table records each applied version, and
 * opening applies every pending step in one transaction under an advisory lock, so several
 * instances starting together migrate once. The accounts and monitor stores each keep their own
 * version table and lock; which steps are pending (and whether a newer database is refused) is
 * theirs to say.
 */
import type pg from "pg";
import { inLockedTransaction } from "./transaction.js";

/** One step of a schema: the SQL that takes it from the version before to `version`. */
export interface SchemaStep {
  version: number;
  description: string;
  sql: string;
}

/** How one store versions its schema. */
export interface VersionedSchema {
  /** The advisory lock id; any fixed number, the same in every process migrating this schema. */
  lock: number;
  /** The table recording applied versions (created when missing). */
  table: string;
  /** The steps to apply to a database at `current`, in order; throws for one it must not touch. */
  pending(current: number): readonly SchemaStep[];
}

/** The highest version recorded in `table` (0 when none is). */
export async function recordedVersion(db: pg.Pool | pg.PoolClient, table: string): Promise<number> {
  const { rows } = await db.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM ${table}`);
  return rows[0]?.v ?? 0;
}

/** Brings the schema at `pool` to its newest version. */
export async function migrateSchema(pool: pg.Pool, schema: VersionedSchema): Promise<void> {
  await inLockedTransaction(pool, schema.lock, async (client) => {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema.table} (
         version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const step of schema.pending(await recordedVersion(client, schema.table))) {
      await client.query(step.sql);
      await client.query(`INSERT INTO ${schema.table} (version, description) VALUES ($1, $2)`, [
        step.version,
        step.description,
      ]);
    }
  });
}
