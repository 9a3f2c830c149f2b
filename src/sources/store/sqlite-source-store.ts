/**
 * SourceStore on SQLite (better-sqlite3) in the data directory: WAL mode, so a `sync` process,
 * a server with `--sync` and a `sources` command can share the file. Each statement is a short
 * indexed write, and claim is a single conditional UPDATE, so two processes on one file cannot
 * both win a lease.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { SourceErrorKind } from "../http/http-error.js";
import type { SourceKind } from "../source.js";
import type { NewSource, PollOutcome, SourceRecord, SourceStore } from "./source-store.js";
import { SourceExistsError } from "./source-store.js";

/** The store's file name inside the data directory. */
export const SOURCES_SQLITE_FILE = "sources.sqlite";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS sources (
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    settings TEXT NOT NULL,
    interval_seconds INTEGER NOT NULL,
    cursor TEXT,
    paused INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    next_poll_at INTEGER NOT NULL,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    last_error_kind TEXT,
    last_poll_at INTEGER,
    last_success_at INTEGER,
    polls INTEGER NOT NULL DEFAULT 0,
    posts_written INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until INTEGER NOT NULL DEFAULT 0
  );
`;

interface Row {
  name: string;
  kind: string;
  settings: string;
  interval_seconds: number;
  cursor: string | null;
  paused: number;
  created_at: number;
  next_poll_at: number;
  consecutive_failures: number;
  last_error: string | null;
  last_error_kind: string | null;
  last_poll_at: number | null;
  last_success_at: number | null;
  polls: number;
  posts_written: number;
  lease_owner: string | null;
  lease_until: number;
}

function toRecord(r: Row): SourceRecord {
  return {
    name: r.name,
    kind: r.kind as SourceKind,
    settings: JSON.parse(r.settings) as SourceRecord["settings"],
    intervalSeconds: r.interval_seconds,
    cursor: r.cursor ?? undefined,
    paused: r.paused === 1,
    createdAt: r.created_at,
    nextPollAt: r.next_poll_at,
    consecutiveFailures: r.consecutive_failures,
    lastError: r.last_error ?? undefined,
    lastErrorKind: (r.last_error_kind ?? undefined) as SourceErrorKind | undefined,
    lastPollAt: r.last_poll_at ?? undefined,
    lastSuccessAt: r.last_success_at ?? undefined,
    polls: r.polls,
    postsWritten: r.posts_written,
    leaseOwner: r.lease_owner ?? undefined,
    leaseUntil: r.lease_until,
  };
}

/** Opens (creating when needed) the store at `file`. */
export function openSqliteSourceStore(file: string): SourceStore {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);
  const get = db.prepare<[string], Row>("SELECT * FROM sources WHERE name = ?");
  return {
    backend: "sqlite",
    async add(s: NewSource) {
      const now = Date.now();
      try {
        db.prepare(
          "INSERT INTO sources (name, kind, settings, interval_seconds, created_at, next_poll_at) VALUES (?, ?, ?, ?, ?, ?)",
        ).run(s.name, s.kind, JSON.stringify(s.settings), s.intervalSeconds, now, now);
      } catch (err) {
        if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY")
          throw new SourceExistsError(`a source named "${s.name}" already exists`);
        throw err;
      }
      return toRecord(get.get(s.name)!);
    },
    async list() {
      return db.prepare<[], Row>("SELECT * FROM sources ORDER BY name").all().map(toRecord);
    },
    async get(name) {
      const row = get.get(name);
      return row === undefined ? undefined : toRecord(row);
    },
    async remove(name) {
      return db.prepare("DELETE FROM sources WHERE name = ?").run(name).changes === 1;
    },
    async setPaused(name, paused) {
      const sql = paused
        ? "UPDATE sources SET paused = 1 WHERE name = ?"
        : "UPDATE sources SET paused = 0, next_poll_at = ? WHERE name = ?";
      const info = paused ? db.prepare(sql).run(name) : db.prepare(sql).run(Date.now(), name);
      return info.changes === 1;
    },
    async claim(name, owner, leaseMs) {
      const now = Date.now();
      const info = db
        .prepare(
          "UPDATE sources SET lease_owner = ?, lease_until = ? WHERE name = ? AND paused = 0 AND next_poll_at <= ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)",
        )
        .run(owner, now + leaseMs, name, now, owner, now);
      return info.changes === 1 ? toRecord(get.get(name)!) : undefined;
    },
    async saveCursor(name, owner, cursor, leaseMs, postsWritten) {
      const now = Date.now();
      const info = db
        .prepare(
          "UPDATE sources SET cursor = ?, lease_until = ?, posts_written = posts_written + ? WHERE name = ? AND lease_owner = ? AND lease_until >= ?",
        )
        .run(cursor, now + leaseMs, postsWritten, name, owner, now);
      return info.changes === 1;
    },
    async renew(name, owner, leaseMs) {
      const now = Date.now();
      return (
        db
          .prepare("UPDATE sources SET lease_until = ? WHERE name = ? AND lease_owner = ? AND lease_until >= ?")
          .run(now + leaseMs, name, owner, now).changes === 1
      );
    },
    async finishPoll(name, owner, outcome: PollOutcome, nextPollAt) {
      const now = Date.now();
      if (outcome.ok) {
        db.prepare(
          "UPDATE sources SET polls = polls + 1, consecutive_failures = 0, last_poll_at = ?, last_success_at = ?, next_poll_at = ?, lease_owner = NULL, lease_until = 0 WHERE name = ? AND lease_owner = ?",
        ).run(now, now, nextPollAt, name, owner);
      } else {
        db.prepare(
          "UPDATE sources SET polls = polls + 1, consecutive_failures = consecutive_failures + 1, last_error = ?, last_error_kind = ?, last_poll_at = ?, next_poll_at = ?, lease_owner = NULL, lease_until = 0 WHERE name = ? AND lease_owner = ?",
        ).run(outcome.message.slice(0, 500), outcome.kind, now, nextPollAt, name, owner);
      }
    },
    async close() {
      db.close();
    },
  };
}
