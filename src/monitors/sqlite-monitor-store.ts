/**
 * The SQLite monitors store, in the data directory next to the accounts store. WAL mode lets the
 * ingest process append events while the server's delivery workers read and update them.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { monitorFromColumns, specJson } from "./monitor-row.js";
import type { StoredMonitor } from "./monitor-spec.js";
import type {
  AttemptOutcome,
  AttemptRecord,
  DueDelivery,
  ListedAttempt,
  MonitorPosition,
  MonitorStore,
  NewEvent,
  StoredEvent,
} from "./monitor-store.js";
import { eventIdOf, seqOfEventId } from "./monitor-store.js";

/** File name of the store in the data directory. */
export const MONITORS_DB_FILE = "monitors.sqlite";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS monitors (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  spec TEXT NOT NULL,
  paused INTEGER NOT NULL,
  paused_reason TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT NOT NULL,
  previous_secret_until INTEGER NOT NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS monitors_account ON monitors(account_id, created, id);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('version', 0);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  monitor_id TEXT NOT NULL,
  post_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  created INTEGER NOT NULL,
  UNIQUE (monitor_id, post_id)
);
CREATE INDEX IF NOT EXISTS events_monitor ON events(monitor_id, seq);
CREATE TABLE IF NOT EXISTS deliveries (
  seq INTEGER NOT NULL,
  monitor_id TEXT NOT NULL,
  channel_index INTEGER NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  window_start INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (seq, channel_index)
);
CREATE INDEX IF NOT EXISTS deliveries_head ON deliveries(state, monitor_id, channel_index, seq);
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL,
  monitor_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status TEXT NOT NULL,
  response_code INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  at INTEGER NOT NULL,
  error TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_monitor ON attempts(monitor_id, id);
`;

interface MonitorRow {
  id: string;
  account_id: string;
  spec: string;
  paused: number;
  paused_reason: string;
  secret: string;
  previous_secret: string;
  previous_secret_until: number;
  created: number;
  updated: number;
}

interface EventRow {
  seq: number;
  monitor_id: string;
  post_id: string;
  payload: string;
  created: number;
}

function toMonitor(r: MonitorRow): StoredMonitor {
  return monitorFromColumns({ ...r, paused: r.paused === 1 });
}

function toEvent(r: EventRow): StoredEvent {
  return {
    id: eventIdOf(r.seq),
    seq: r.seq,
    monitorId: r.monitor_id,
    postId: r.post_id,
    payload: r.payload,
    created: r.created,
  };
}

/** Stores made before deferrals existed lack deliveries.window_start; 0 means "the event's creation". */
function addWindowStart(db: Database.Database): void {
  const columns = db.prepare("PRAGMA table_info(deliveries)").all() as { name: string }[];
  if (!columns.some((c) => c.name === "window_start"))
    db.exec("ALTER TABLE deliveries ADD COLUMN window_start INTEGER NOT NULL DEFAULT 0");
}

/** Opens (creating as needed) the store at `file`. */
export function openSqliteMonitorStore(file: string): MonitorStore {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    // The ingest process and the server write the same file.
    db.pragma("busy_timeout = 5000");
    // FULL: an event acknowledged to the pipeline must survive a power cut, not only a crash.
    db.pragma("synchronous = FULL");
    db.exec(SCHEMA);
    addWindowStart(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return new SqliteMonitorStore(db);
}

class SqliteMonitorStore implements MonitorStore {
  private readonly bump;
  private readonly insertEvent;
  private readonly insertDelivery;

  constructor(private readonly db: Database.Database) {
    this.bump = db.prepare("UPDATE meta SET v = v + 1 WHERE k = 'version'");
    this.insertEvent = db.prepare(
      "INSERT OR IGNORE INTO events (monitor_id, post_id, payload, created) VALUES (?, ?, ?, ?)",
    );
    this.insertDelivery = db.prepare(
      "INSERT INTO deliveries (seq, monitor_id, channel_index, state, attempts, next_at) VALUES (?, ?, ?, 'pending', 0, ?)",
    );
  }

  async create(m: StoredMonitor): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare("INSERT INTO monitors VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(
          m.id,
          m.accountId,
          specJson(m),
          m.paused ? 1 : 0,
          m.pausedReason,
          m.secret,
          m.previousSecret,
          m.previousSecretUntil,
          m.created,
          m.updated,
        );
      this.bump.run();
    })();
  }

  async get(accountId: string, id: string): Promise<StoredMonitor | undefined> {
    const r = this.db.prepare("SELECT * FROM monitors WHERE id = ? AND account_id = ?").get(id, accountId) as
      | MonitorRow
      | undefined;
    return r === undefined ? undefined : toMonitor(r);
  }

  async byId(id: string): Promise<StoredMonitor | undefined> {
    const r = this.db.prepare("SELECT * FROM monitors WHERE id = ?").get(id) as MonitorRow | undefined;
    return r === undefined ? undefined : toMonitor(r);
  }

  async list(accountId: string, after: MonitorPosition | undefined, limit: number): Promise<StoredMonitor[]> {
    const rows = (
      after === undefined
        ? this.db
            .prepare("SELECT * FROM monitors WHERE account_id = ? ORDER BY created, id LIMIT ?")
            .all(accountId, limit)
        : this.db
            .prepare(
              "SELECT * FROM monitors WHERE account_id = ? AND (created > ? OR (created = ? AND id > ?)) ORDER BY created, id LIMIT ?",
            )
            .all(accountId, after.created, after.created, after.id, limit)
    ) as MonitorRow[];
    return rows.map(toMonitor);
  }

  async update(m: StoredMonitor): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare(
          "UPDATE monitors SET spec = ?, paused = ?, paused_reason = ?, secret = ?, previous_secret = ?, previous_secret_until = ?, updated = ? WHERE id = ? AND account_id = ?",
        )
        .run(
          specJson(m),
          m.paused ? 1 : 0,
          m.pausedReason,
          m.secret,
          m.previousSecret,
          m.previousSecretUntil,
          m.updated,
          m.id,
          m.accountId,
        );
      this.bump.run();
    })();
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(() => {
      const gone =
        this.db.prepare("DELETE FROM monitors WHERE id = ? AND account_id = ?").run(id, accountId).changes > 0;
      if (gone) {
        for (const table of ["events", "deliveries", "attempts"])
          this.db.prepare(`DELETE FROM ${table} WHERE monitor_id = ?`).run(id);
        this.bump.run();
      }
      return gone;
    })();
  }

  async countActive(accountId: string): Promise<number> {
    return (
      this.db.prepare("SELECT COUNT(*) AS n FROM monitors WHERE account_id = ? AND paused = 0").get(accountId) as {
        n: number;
      }
    ).n;
  }

  async active(): Promise<StoredMonitor[]> {
    return (this.db.prepare("SELECT * FROM monitors WHERE paused = 0 ORDER BY created, id").all() as MonitorRow[]).map(
      toMonitor,
    );
  }

  async version(): Promise<number> {
    return (this.db.prepare("SELECT v FROM meta WHERE k = 'version'").get() as { v: number }).v;
  }

  async append(events: readonly NewEvent[], now: number): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    return this.db.transaction(() => {
      const out: StoredEvent[] = [];
      for (const e of events) {
        const r = this.insertEvent.run(e.monitorId, e.postId, e.payload, now);
        if (r.changes === 0) continue;
        const seq = Number(r.lastInsertRowid);
        for (let c = 0; c < e.channels; c++) this.insertDelivery.run(seq, e.monitorId, c, now);
        out.push({
          id: eventIdOf(seq),
          seq,
          monitorId: e.monitorId,
          postId: e.postId,
          payload: e.payload,
          created: now,
        });
      }
      return out;
    })();
  }

  async eventsAfter(monitorId: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    return (
      this.db
        .prepare("SELECT * FROM events WHERE monitor_id = ? AND seq > ? ORDER BY seq LIMIT ?")
        .all(monitorId, afterSeq, limit) as EventRow[]
    ).map(toEvent);
  }

  async lastSeq(monitorId: string): Promise<number> {
    return (
      this.db.prepare("SELECT COALESCE(MAX(seq), 0) AS s FROM events WHERE monitor_id = ?").get(monitorId) as {
        s: number;
      }
    ).s;
  }

  async getEvent(monitorId: string, eventId: string): Promise<StoredEvent | undefined> {
    const seq = seqOfEventId(eventId);
    if (seq === undefined) return undefined;
    const r = this.db.prepare("SELECT * FROM events WHERE seq = ? AND monitor_id = ?").get(seq, monitorId) as
      | EventRow
      | undefined;
    return r === undefined ? undefined : toEvent(r);
  }

  async due(now: number, limit: number): Promise<DueDelivery[]> {
    // Only the head of each monitor channel's queue may go: that is what keeps order per monitor.
    // A paused monitor's queue waits.
    const rows = this.db
      .prepare(
        `SELECT d.channel_index, d.attempts, d.window_start, e.* FROM deliveries d
           JOIN events e ON e.seq = d.seq
           JOIN monitors m ON m.id = d.monitor_id AND m.paused = 0
          WHERE d.state = 'pending' AND d.next_at <= ?
            AND d.seq = (SELECT MIN(h.seq) FROM deliveries h WHERE h.state = 'pending' AND h.monitor_id = d.monitor_id AND h.channel_index = d.channel_index)
          ORDER BY d.next_at LIMIT ?`,
      )
      .all(now, limit) as (EventRow & { channel_index: number; attempts: number; window_start: number })[];
    return rows.map((r) => ({
      event: toEvent(r),
      channelIndex: r.channel_index,
      attempts: r.attempts,
      windowStart: Math.max(r.created, r.window_start),
    }));
  }

  private insertAttempt(seq: number, a: AttemptRecord): void {
    this.db
      .prepare(
        "INSERT INTO attempts (seq, monitor_id, channel, attempt, status, response_code, latency_ms, at, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(seq, a.monitorId, a.channel, a.attempt, a.status, a.responseCode, a.latencyMs, a.at, a.error);
  }

  async recordAttempt(a: AttemptRecord, channelIndex: number, outcome: AttemptOutcome): Promise<void> {
    await this.recordAttempts([a], channelIndex, outcome);
  }

  async recordAttempts(
    records: readonly AttemptRecord[],
    channelIndex: number,
    outcome: AttemptOutcome,
  ): Promise<void> {
    const state = outcome.kind === "delivered" ? "delivered" : outcome.kind === "dead" ? "dead" : "pending";
    this.db.transaction(() => {
      for (const a of records) {
        const seq = seqOfEventId(a.eventId)!;
        this.insertAttempt(seq, a);
        const next = outcome.kind === "retry" ? outcome.at : a.at;
        this.db
          .prepare("UPDATE deliveries SET state = ?, attempts = ?, next_at = ? WHERE seq = ? AND channel_index = ?")
          .run(state, a.attempt, next, seq, channelIndex);
      }
    })();
  }

  async defer(eventId: string, channelIndex: number, at: number, note?: AttemptRecord): Promise<void> {
    const seq = seqOfEventId(eventId)!;
    this.db.transaction(() => {
      if (note !== undefined) this.insertAttempt(seq, note);
      this.db
        .prepare(
          "UPDATE deliveries SET next_at = ?, window_start = ? WHERE seq = ? AND channel_index = ? AND state = 'pending'",
        )
        .run(at, at, seq, channelIndex);
    })();
  }

  async pendingEvents(
    monitorId: string,
    channelIndex: number,
    createdBefore: number,
    limit: number,
  ): Promise<StoredEvent[]> {
    return (
      this.db
        .prepare(
          `SELECT e.* FROM deliveries d JOIN events e ON e.seq = d.seq
            WHERE d.monitor_id = ? AND d.channel_index = ? AND d.state = 'pending' AND e.created < ?
            ORDER BY d.seq LIMIT ?`,
        )
        .all(monitorId, channelIndex, createdBefore, limit) as EventRow[]
    ).map(toEvent);
  }

  async attempts(
    monitorId: string,
    status: string,
    before: number | undefined,
    limit: number,
  ): Promise<ListedAttempt[]> {
    const where = ["monitor_id = ?"];
    const args: (string | number)[] = [monitorId];
    if (status !== "") {
      where.push("status = ?");
      args.push(status);
    }
    if (before !== undefined) {
      where.push("id < ?");
      args.push(before);
    }
    const rows = this.db
      .prepare(`SELECT * FROM attempts WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`)
      .all(...args, limit) as {
      id: number;
      seq: number;
      monitor_id: string;
      channel: string;
      attempt: number;
      status: AttemptRecord["status"];
      response_code: number;
      latency_ms: number;
      at: number;
      error: string;
    }[];
    return rows.map((r) => ({
      id: r.id,
      eventId: eventIdOf(r.seq),
      monitorId: r.monitor_id,
      channel: r.channel,
      attempt: r.attempt,
      status: r.status,
      responseCode: r.response_code,
      latencyMs: r.latency_ms,
      at: r.at,
      error: r.error,
    }));
  }

  async redeliver(monitorId: string, eventId: string, now: number): Promise<boolean> {
    const seq = seqOfEventId(eventId);
    if (seq === undefined) return false;
    return this.db.transaction(() => {
      const found =
        this.db.prepare("SELECT 1 FROM events WHERE seq = ? AND monitor_id = ?").get(seq, monitorId) !== undefined;
      if (found)
        this.db
          .prepare("UPDATE deliveries SET state = 'pending', next_at = ?, window_start = ? WHERE seq = ?")
          .run(now, now, seq);
      return found;
    })();
  }

  async pause(monitorId: string, reason: string, now: number): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare("UPDATE monitors SET paused = 1, paused_reason = ?, updated = ? WHERE id = ?")
        .run(reason, now, monitorId);
      this.bump.run();
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
