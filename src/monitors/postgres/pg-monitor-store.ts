/**
 * MonitorStore on PostgreSQL, used when DATABASE_URL is set so several instances share monitors,
 * the outbox and the deliveries. An append is one transaction: the events, a delivery row per
 * channel and a pg-boss wake-up per lane commit together, or not at all.
 *
 * Appends take a transaction-level advisory lock before drawing sequence numbers. Without it two
 * instances could commit numbers out of order (10 after 11), and a WatchMonitor reader or a lane
 * that had moved past 11 would never see 10.
 */
import pg from "pg";
import { inLockedTransaction, inTransaction } from "../../postgres/transaction.js";
import { postgresLabel } from "../../postgres/url-label.js";
import { specJson } from "../monitor-row.js";
import type { StoredMonitor } from "../monitor-spec.js";
import type {
  AttemptOutcome,
  AttemptRecord,
  DueDelivery,
  ListedAttempt,
  MonitorPosition,
  MonitorStore,
  NewEvent,
  StoredEvent,
} from "../monitor-store.js";
import { seqOfEventId } from "../monitor-store.js";
import type { Lane, LaneQueue, Queryable } from "./lane-queue.js";
import type { EventRow, HeadRow, MonitorRow } from "./pg-monitor-rows.js";
import { DUE_HEADS, toAttempt, toDue, toEvent, toMonitor } from "./pg-monitor-rows.js";
import { migrateMonitors } from "./pg-monitor-schema.js";

// The same number in every process appending events; only has to differ from other locks.
const APPEND_LOCK = 0x7473_6576; // "tsev"

/** The PostgreSQL store with the pool and queue a delivery runner shares. */
export interface PgMonitorStore extends MonitorStore {
  readonly pool: pg.Pool;
  readonly queue: LaneQueue;
}

/** Connects to `url`, migrates, and returns the store over `queue` (which it closes on close). */
export async function openPgMonitorStore(
  url: string,
  queue: LaneQueue,
  options: { maxConnections?: number } = {},
): Promise<PgMonitorStore> {
  const pool = new pg.Pool({
    connectionString: url,
    // A delivery holds a connection while its receiver answers; the rest serve API calls.
    max: options.maxConnections ?? 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: "threadsight-monitors",
  });
  // An idle connection dropped by the server emits here; the next query gets a fresh one.
  pool.on("error", () => undefined);
  try {
    await migrateMonitors(pool, postgresLabel(url));
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return new PostgresMonitorStore(pool, queue);
}

const bump = (db: Queryable) => db.query("UPDATE monitor_meta SET v = v + 1 WHERE k = 'version'");

function lanesOf(m: StoredMonitor): Lane[] {
  return m.channels.map((_c, i) => ({ monitorId: m.id, channelIndex: i }));
}

class PostgresMonitorStore implements PgMonitorStore {
  private closed = false;

  constructor(
    readonly pool: pg.Pool,
    readonly queue: LaneQueue,
  ) {}

  async create(m: StoredMonitor): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query("INSERT INTO monitors VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", [
        m.id,
        m.accountId,
        specJson(m),
        m.paused,
        m.pausedReason,
        m.secret,
        m.previousSecret,
        m.previousSecretUntil,
        m.created,
        m.updated,
      ]);
      await bump(c);
    });
  }

  async get(accountId: string, id: string): Promise<StoredMonitor | undefined> {
    const { rows } = await this.pool.query<MonitorRow>("SELECT * FROM monitors WHERE id = $1 AND account_id = $2", [
      id,
      accountId,
    ]);
    return rows[0] === undefined ? undefined : toMonitor(rows[0]);
  }

  async byId(id: string): Promise<StoredMonitor | undefined> {
    const { rows } = await this.pool.query<MonitorRow>("SELECT * FROM monitors WHERE id = $1", [id]);
    return rows[0] === undefined ? undefined : toMonitor(rows[0]);
  }

  async list(accountId: string, after: MonitorPosition | undefined, limit: number): Promise<StoredMonitor[]> {
    // Ids compare byte-wise (COLLATE "C") as in SQLite, so a page ends where the other store's would.
    const { rows } =
      after === undefined
        ? await this.pool.query<MonitorRow>(
            `SELECT * FROM monitors WHERE account_id = $1 ORDER BY created, id COLLATE "C" LIMIT $2`,
            [accountId, limit],
          )
        : await this.pool.query<MonitorRow>(
            `SELECT * FROM monitors WHERE account_id = $1 AND (created > $2 OR (created = $2 AND id COLLATE "C" > $3))
              ORDER BY created, id COLLATE "C" LIMIT $4`,
            [accountId, after.created, after.id, limit],
          );
    return rows.map(toMonitor);
  }

  async update(m: StoredMonitor): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query(
        `UPDATE monitors SET spec = $1, paused = $2, paused_reason = $3, secret = $4, previous_secret = $5,
           previous_secret_until = $6, updated = $7 WHERE id = $8 AND account_id = $9`,
        [
          specJson(m),
          m.paused,
          m.pausedReason,
          m.secret,
          m.previousSecret,
          m.previousSecretUntil,
          m.updated,
          m.id,
          m.accountId,
        ],
      );
      await bump(c);
      // A resumed monitor's waiting deliveries go out without waiting for the sweep.
      if (!m.paused) await this.queue.enqueue(c, lanesOf(m));
    });
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      const gone =
        ((await c.query("DELETE FROM monitors WHERE id = $1 AND account_id = $2", [id, accountId])).rowCount ?? 0) > 0;
      if (gone) {
        for (const table of ["monitor_events", "monitor_deliveries", "monitor_attempts"])
          await c.query(`DELETE FROM ${table} WHERE monitor_id = $1`, [id]);
        await bump(c);
      }
      return gone;
    });
  }

  async countActive(accountId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      "SELECT COUNT(*)::int AS n FROM monitors WHERE account_id = $1 AND NOT paused",
      [accountId],
    );
    return rows[0]!.n;
  }

  async active(): Promise<StoredMonitor[]> {
    const { rows } = await this.pool.query<MonitorRow>(
      `SELECT * FROM monitors WHERE NOT paused ORDER BY created, id COLLATE "C"`,
    );
    return rows.map(toMonitor);
  }

  async version(): Promise<number> {
    const { rows } = await this.pool.query<{ v: string }>("SELECT v FROM monitor_meta WHERE k = 'version'");
    return Number(rows[0]!.v);
  }

  async append(events: readonly NewEvent[], now: number): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    return inLockedTransaction(this.pool, APPEND_LOCK, async (c) => {
      // Rows are numbered in the order given (ORDER BY ord), as the SQLite store numbers them.
      const { rows } = await c.query<EventRow>(
        `INSERT INTO monitor_events (monitor_id, post_id, payload, created)
         SELECT m, p, j, $4 FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS x(m, p, j, ord) ORDER BY ord
         ON CONFLICT (monitor_id, post_id) DO NOTHING
         RETURNING *`,
        [events.map((e) => e.monitorId), events.map((e) => e.postId), events.map((e) => e.payload), now],
      );
      const written = rows.map(toEvent).sort((a, b) => a.seq - b.seq);
      const channels = new Map(events.map((e) => [e.monitorId, e.channels]));
      const seqs: number[] = [];
      const monitors: string[] = [];
      const indexes: number[] = [];
      for (const e of written)
        for (let i = 0; i < (channels.get(e.monitorId) ?? 0); i++) {
          seqs.push(e.seq);
          monitors.push(e.monitorId);
          indexes.push(i);
        }
      if (seqs.length > 0) {
        await c.query(
          `INSERT INTO monitor_deliveries (seq, monitor_id, channel_index, state, attempts, next_at)
           SELECT s, m, i, 'pending', 0, $4 FROM unnest($1::bigint[], $2::text[], $3::int[]) AS x(s, m, i)`,
          [seqs, monitors, indexes, now],
        );
        await this.queue.enqueue(
          c,
          seqs.map((_s, k) => ({ monitorId: monitors[k]!, channelIndex: indexes[k]! })),
        );
      }
      return written;
    });
  }

  async eventsAfter(monitorId: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    const { rows } = await this.pool.query<EventRow>(
      "SELECT * FROM monitor_events WHERE monitor_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [monitorId, afterSeq, limit],
    );
    return rows.map(toEvent);
  }

  async lastSeq(monitorId: string): Promise<number> {
    const { rows } = await this.pool.query<{ s: string }>(
      "SELECT COALESCE(MAX(seq), 0) AS s FROM monitor_events WHERE monitor_id = $1",
      [monitorId],
    );
    return Number(rows[0]!.s);
  }

  async getEvent(monitorId: string, eventId: string): Promise<StoredEvent | undefined> {
    const seq = seqOfEventId(eventId);
    if (seq === undefined) return undefined;
    const { rows } = await this.pool.query<EventRow>(
      "SELECT * FROM monitor_events WHERE seq = $1 AND monitor_id = $2",
      [seq, monitorId],
    );
    return rows[0] === undefined ? undefined : toEvent(rows[0]);
  }

  async due(now: number, limit: number): Promise<DueDelivery[]> {
    const { rows } = await this.pool.query<HeadRow>(
      `SELECT d.channel_index, d.attempts, d.window_start, e.* FROM (${DUE_HEADS}) d JOIN monitor_events e ON e.seq = d.seq
        ORDER BY d.next_at LIMIT $2`,
      [now, limit],
    );
    return rows.map(toDue);
  }

  async recordAttempt(a: AttemptRecord, channelIndex: number, outcome: AttemptOutcome): Promise<void> {
    await this.recordAttempts([a], channelIndex, outcome);
  }

  async recordAttempts(
    records: readonly AttemptRecord[],
    channelIndex: number,
    outcome: AttemptOutcome,
  ): Promise<void> {
    const monitorId = records[0]?.monitorId;
    if (monitorId === undefined) return;
    await inTransaction(this.pool, async (c) => {
      await recordAttemptsOn(c, records, channelIndex, outcome);
      if (outcome.kind === "retry") await this.queue.enqueue(c, [{ monitorId, channelIndex }], outcome.at);
    });
  }

  async defer(eventId: string, channelIndex: number, at: number, note?: AttemptRecord): Promise<void> {
    await inTransaction(this.pool, (c) => deferOn(c, this.queue, eventId, channelIndex, at, note));
  }

  async pendingEvents(
    monitorId: string,
    channelIndex: number,
    createdBefore: number,
    limit: number,
  ): Promise<StoredEvent[]> {
    return pendingEventsOn(this.pool, monitorId, channelIndex, createdBefore, limit);
  }

  async attempts(
    monitorId: string,
    status: string,
    before: number | undefined,
    limit: number,
  ): Promise<ListedAttempt[]> {
    const where = ["monitor_id = $1"];
    const args: (string | number)[] = [monitorId];
    if (status !== "") {
      args.push(status);
      where.push(`status = $${args.length}`);
    }
    if (before !== undefined) {
      args.push(before);
      where.push(`id < $${args.length}`);
    }
    args.push(limit);
    const { rows } = await this.pool.query(
      `SELECT * FROM monitor_attempts WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $${args.length}`,
      args,
    );
    return rows.map(toAttempt);
  }

  async redeliver(monitorId: string, eventId: string, now: number): Promise<boolean> {
    const seq = seqOfEventId(eventId);
    if (seq === undefined) return false;
    return inTransaction(this.pool, async (c) => {
      const found =
        (await c.query("SELECT 1 FROM monitor_events WHERE seq = $1 AND monitor_id = $2", [seq, monitorId])).rows
          .length > 0;
      if (!found) return false;
      const { rows } = await c.query<{ channel_index: number }>(
        "UPDATE monitor_deliveries SET state = 'pending', next_at = $2, window_start = $2 WHERE seq = $1 RETURNING channel_index",
        [seq, now],
      );
      await this.queue.enqueue(
        c,
        rows.map((r) => ({ monitorId, channelIndex: r.channel_index })),
      );
      return true;
    });
  }

  async pause(monitorId: string, reason: string, now: number): Promise<void> {
    await inTransaction(this.pool, (c) => pauseOn(c, monitorId, reason, now));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.close().catch(() => undefined);
    await this.pool.end();
  }
}

async function insertAttempt(db: Queryable, seq: number, a: AttemptRecord): Promise<void> {
  await db.query(
    `INSERT INTO monitor_attempts (seq, monitor_id, channel, attempt, status, response_code, latency_ms, at, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [seq, a.monitorId, a.channel, a.attempt, a.status, a.responseCode, a.latencyMs, a.at, a.error],
  );
}

/** Records one attempt per event (a digest covers several) and moves their delivery rows on, through `db`. */
export async function recordAttemptsOn(
  db: Queryable,
  records: readonly AttemptRecord[],
  channelIndex: number,
  outcome: AttemptOutcome,
): Promise<void> {
  const state = outcome.kind === "delivered" ? "delivered" : outcome.kind === "dead" ? "dead" : "pending";
  for (const a of records) {
    const seq = seqOfEventId(a.eventId)!;
    await insertAttempt(db, seq, a);
    const next = outcome.kind === "retry" ? outcome.at : a.at;
    await db.query(
      "UPDATE monitor_deliveries SET state = $1, attempts = $2, next_at = $3 WHERE seq = $4 AND channel_index = $5",
      [state, a.attempt, next, seq, channelIndex],
    );
  }
}

/**
 * Holds a pending delivery until `at` without counting an attempt (its retry window then starts
 * at `at`), records `note` when given, and queues the lane's wake-up for `at`, through `db`.
 */
export async function deferOn(
  db: Queryable,
  queue: LaneQueue,
  eventId: string,
  channelIndex: number,
  at: number,
  note?: AttemptRecord,
): Promise<void> {
  const seq = seqOfEventId(eventId)!;
  if (note !== undefined) await insertAttempt(db, seq, note);
  const { rows } = await db.query<{ monitor_id: string }>(
    `UPDATE monitor_deliveries SET next_at = $1, window_start = $1
      WHERE seq = $2 AND channel_index = $3 AND state = 'pending' RETURNING monitor_id`,
    [at, seq, channelIndex],
  );
  await queue.enqueue(
    db,
    rows.map((r) => ({ monitorId: r.monitor_id, channelIndex })),
    at,
  );
}

/** Pending events of one lane created before `createdBefore`, oldest first, through `db`. */
export async function pendingEventsOn(
  db: Queryable,
  monitorId: string,
  channelIndex: number,
  createdBefore: number,
  limit: number,
): Promise<StoredEvent[]> {
  const { rows } = await db.query<EventRow>(
    `SELECT e.* FROM monitor_deliveries d JOIN monitor_events e ON e.seq = d.seq
      WHERE d.monitor_id = $1 AND d.channel_index = $2 AND d.state = 'pending' AND e.created < $3
      ORDER BY d.seq LIMIT $4`,
    [monitorId, channelIndex, createdBefore, limit],
  );
  return rows.map(toEvent);
}

/** Pauses a monitor with a reason, through `db`. */
export async function pauseOn(db: Queryable, monitorId: string, reason: string, now: number): Promise<void> {
  await db.query("UPDATE monitors SET paused = true, paused_reason = $1, updated = $2 WHERE id = $3", [
    reason,
    now,
    monitorId,
  ]);
  await bump(db);
}
