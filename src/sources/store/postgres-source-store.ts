/**
 * SourceStore on PostgreSQL (node-postgres), used when DATABASE_URL is set so several instances
 * share one schedule. Lease times are read from the database's clock, not each instance's, so
 * instances on machines whose clocks disagree still agree on when a lease has run out. A claim is
 * one conditional UPDATE: under PostgreSQL's row locking only one of two racing instances can
 * match the free-lease condition.
 */
import pg from "pg";
import { inLockedTransaction } from "../../postgres/transaction.js";
import type { SourceErrorKind } from "../http/http-error.js";
import type { SourceKind } from "../source.js";
import type { NewSource, PollOutcome, SourceRecord, SourceStore } from "./source-store.js";
import { SourceExistsError } from "./source-store.js";

// The same number in every process creating the table; only has to differ from other locks.
const SCHEMA_LOCK = 0x7473_7372; // "tssr"
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS threadsight_sources (
    name text PRIMARY KEY,
    kind text NOT NULL,
    settings jsonb NOT NULL,
    interval_seconds integer NOT NULL,
    cursor text,
    paused boolean NOT NULL DEFAULT false,
    created_at bigint NOT NULL,
    next_poll_at bigint NOT NULL,
    consecutive_failures integer NOT NULL DEFAULT 0,
    last_error text,
    last_error_kind text,
    last_poll_at bigint,
    last_success_at bigint,
    polls integer NOT NULL DEFAULT 0,
    posts_written bigint NOT NULL DEFAULT 0,
    lease_owner text,
    lease_until bigint NOT NULL DEFAULT 0
  );
`;

interface Row {
  name: string;
  kind: string;
  settings: Record<string, unknown>;
  interval_seconds: number;
  cursor: string | null;
  paused: boolean;
  created_at: string;
  next_poll_at: string;
  consecutive_failures: number;
  last_error: string | null;
  last_error_kind: string | null;
  last_poll_at: string | null;
  last_success_at: string | null;
  polls: number;
  posts_written: string;
  lease_owner: string | null;
  lease_until: string;
}

const optNumber = (v: string | null): number | undefined => (v === null ? undefined : Number(v));

function toRecord(r: Row): SourceRecord {
  return {
    name: r.name,
    kind: r.kind as SourceKind,
    settings: r.settings,
    intervalSeconds: r.interval_seconds,
    cursor: r.cursor ?? undefined,
    paused: r.paused,
    createdAt: Number(r.created_at),
    nextPollAt: Number(r.next_poll_at),
    consecutiveFailures: r.consecutive_failures,
    lastError: r.last_error ?? undefined,
    lastErrorKind: (r.last_error_kind ?? undefined) as SourceErrorKind | undefined,
    lastPollAt: optNumber(r.last_poll_at),
    lastSuccessAt: optNumber(r.last_success_at),
    polls: r.polls,
    postsWritten: Number(r.posts_written),
    leaseOwner: r.lease_owner ?? undefined,
    leaseUntil: Number(r.lease_until),
  };
}

/** Connects to `url`, creates the table when missing, and returns the store. */
export async function openPostgresSourceStore(url: string): Promise<SourceStore> {
  const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000 });
  pool.on("error", () => undefined); // an idle client's failure surfaces at the next query
  try {
    await inLockedTransaction(pool, SCHEMA_LOCK, (c) => c.query(SCHEMA));
  } catch (err) {
    await pool.end();
    throw err;
  }
  const one = async (sql: string, params: unknown[]): Promise<SourceRecord | undefined> => {
    const res = await pool.query<Row>(sql, params);
    return res.rows[0] === undefined ? undefined : toRecord(res.rows[0]);
  };
  return {
    backend: "postgres",
    async add(s: NewSource) {
      try {
        return (await one(
          `INSERT INTO threadsight_sources (name, kind, settings, interval_seconds, created_at, next_poll_at) VALUES ($1, $2, $3, $4, ${NOW_MS}, ${NOW_MS}) RETURNING *`,
          [s.name, s.kind, JSON.stringify(s.settings), s.intervalSeconds],
        ))!;
      } catch (err) {
        if ((err as { code?: string }).code === "23505")
          throw new SourceExistsError(`a source named "${s.name}" already exists`);
        throw err;
      }
    },
    async list() {
      return (await pool.query<Row>("SELECT * FROM threadsight_sources ORDER BY name")).rows.map(toRecord);
    },
    async get(name) {
      return one("SELECT * FROM threadsight_sources WHERE name = $1", [name]);
    },
    async remove(name) {
      return ((await pool.query("DELETE FROM threadsight_sources WHERE name = $1", [name])).rowCount ?? 0) === 1;
    },
    async setPaused(name, paused) {
      const sql = paused
        ? "UPDATE threadsight_sources SET paused = true WHERE name = $1"
        : `UPDATE threadsight_sources SET paused = false, next_poll_at = ${NOW_MS} WHERE name = $1`;
      return ((await pool.query(sql, [name])).rowCount ?? 0) === 1;
    },
    async claim(name, owner, leaseMs) {
      return one(
        `UPDATE threadsight_sources SET lease_owner = $2, lease_until = ${NOW_MS} + $3
         WHERE name = $1 AND NOT paused AND next_poll_at <= ${NOW_MS} AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < ${NOW_MS}) RETURNING *`,
        [name, owner, leaseMs],
      );
    },
    async saveCursor(name, owner, cursor, leaseMs, postsWritten) {
      const res = await pool.query(
        `UPDATE threadsight_sources SET cursor = $3, lease_until = ${NOW_MS} + $4, posts_written = posts_written + $5
         WHERE name = $1 AND lease_owner = $2 AND lease_until >= ${NOW_MS}`,
        [name, owner, cursor, leaseMs, postsWritten],
      );
      return (res.rowCount ?? 0) === 1;
    },
    async renew(name, owner, leaseMs) {
      const res = await pool.query(
        `UPDATE threadsight_sources SET lease_until = ${NOW_MS} + $3 WHERE name = $1 AND lease_owner = $2 AND lease_until >= ${NOW_MS}`,
        [name, owner, leaseMs],
      );
      return (res.rowCount ?? 0) === 1;
    },
    async finishPoll(name, owner, outcome: PollOutcome, nextPollAt) {
      if (outcome.ok) {
        await pool.query(
          `UPDATE threadsight_sources SET polls = polls + 1, consecutive_failures = 0, last_poll_at = ${NOW_MS}, last_success_at = ${NOW_MS}, next_poll_at = $3, lease_owner = NULL, lease_until = 0
           WHERE name = $1 AND lease_owner = $2`,
          [name, owner, nextPollAt],
        );
      } else {
        await pool.query(
          `UPDATE threadsight_sources SET polls = polls + 1, consecutive_failures = consecutive_failures + 1, last_error = $3, last_error_kind = $4, last_poll_at = ${NOW_MS}, next_poll_at = $5, lease_owner = NULL, lease_until = 0
           WHERE name = $1 AND lease_owner = $2`,
          [name, owner, outcome.message.slice(0, 500), outcome.kind, nextPollAt],
        );
      }
    },
    async close() {
      await pool.end();
    },
  };
}
