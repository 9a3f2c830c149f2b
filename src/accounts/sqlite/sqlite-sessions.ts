/** The sessions part of the SQLite store. */
import type Database from "better-sqlite3";
import type { SessionRecord, SessionRecords } from "../session-records.js";

interface SessionRow {
  token_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

function toSession(r: SessionRow): SessionRecord {
  return {
    tokenHash: r.token_hash,
    accountId: r.account_id,
    csrfToken: r.csrf_token,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
  };
}

/** SessionRecords over an open, migrated database. */
export function sqliteSessions(db: Database.Database): SessionRecords {
  const s = {
    insert: db.prepare(
      `INSERT INTO sessions (token_hash, account_id, csrf_token, created_at, expires_at)
       VALUES (@token_hash, @account_id, @csrf_token, @created_at, @expires_at)`,
    ),
    get: db.prepare(
      "SELECT token_hash, account_id, csrf_token, created_at, expires_at FROM sessions WHERE token_hash = ?",
    ),
    delete: db.prepare("DELETE FROM sessions WHERE token_hash = ?"),
    deleteExpired: db.prepare("DELETE FROM sessions WHERE expires_at <= ?"),
  };
  return {
    async createSession(session) {
      s.insert.run({
        token_hash: session.tokenHash,
        account_id: session.accountId,
        csrf_token: session.csrfToken,
        created_at: session.createdAt.getTime(),
        expires_at: session.expiresAt.getTime(),
      });
    },
    async getSession(tokenHash) {
      const r = s.get.get(tokenHash) as SessionRow | undefined;
      return r === undefined ? undefined : toSession(r);
    },
    async deleteSession(tokenHash) {
      return s.delete.run(tokenHash).changes === 1;
    },
    async deleteExpiredSessions(now) {
      return s.deleteExpired.run(now.getTime()).changes;
    },
  };
}
