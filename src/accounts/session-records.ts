/** Portal sessions as the store keeps them: only the token's hash, never the token. */

/** A portal session as stored: the token itself never is, only its SHA-256. */
export interface SessionRecord {
  /** SHA-256 of the session token, lowercase hex. */
  tokenHash: string;
  accountId: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/** The sessions part of the store. */
export interface SessionRecords {
  /** Stores a session; throws when the token hash exists or the account does not. */
  createSession(session: SessionRecord): Promise<void>;
  /** The session with this token hash, expired or not (the caller judges expiry). */
  getSession(tokenHash: string): Promise<SessionRecord | undefined>;
  /** Ends one session; false when there was none. */
  deleteSession(tokenHash: string): Promise<boolean>;
  /** Removes sessions with expiresAt <= now; returns how many. */
  deleteExpiredSessions(now: Date): Promise<number>;
}
