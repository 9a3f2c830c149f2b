/** The sessions part of the PostgreSQL store. */
import type pg from "pg";
import type { SessionRecord, SessionRecords } from "../session-records.js";
import { pgRows } from "./pg-rows.js";

interface SessionRow {
  token_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: Date;
  expires_at: Date;
}

const SESSION_COLUMNS = "token_hash, account_id, csrf_token, created_at, expires_at";

function toSession(r: SessionRow): SessionRecord {
  return {
    tokenHash: r.token_hash,
    accountId: r.account_id,
    csrfToken: r.csrf_token,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

/** SessionRecords over a pool to a migrated database. */
export function pgSessions(pool: pg.Pool): SessionRecords {
  const rows = pgRows(pool);
  return {
    async createSession(session) {
      await pool.query(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`, [
        session.tokenHash,
        session.accountId,
        session.csrfToken,
        session.createdAt,
        session.expiresAt,
      ]);
    },
    async getSession(tokenHash) {
      const [row] = await rows<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = $1`, [
        tokenHash,
      ]);
      return row === undefined ? undefined : toSession(row);
    },
    async deleteSession(tokenHash) {
      return (await pool.query("DELETE FROM sessions WHERE token_hash = $1", [tokenHash])).rowCount === 1;
    },
    async deleteExpiredSessions(now) {
      return (await pool.query("DELETE FROM sessions WHERE expires_at <= $1", [now])).rowCount ?? 0;
    },
  };
}
