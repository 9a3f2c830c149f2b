/**
 * The accounts store could not be reached. Its class name maps to UNAVAILABLE (503) at the
 * Connect edge (errors/to-connect.ts), so an outage of PostgreSQL reads as "retry shortly" to
 * a client, never as a 500 or, worse, as "invalid API key".
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
}

// Socket-level failures while connecting: the statement was never sent.
const CONNECT_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/**
 * True when `err` proves the statement never reached the database (no connection could be
 * made), so repeating it later cannot apply it twice. A connection lost mid-statement is not
 * one of these: the server may have committed before it went away.
 */
export function neverSent(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && CONNECT_CODES.has(code)) return true;
  // SQLSTATE 57P03 cannot_connect_now: the server is starting or shutting down.
  if (code === "57P03") return true;
  // node-postgres's pool gives up waiting for a connection with this message.
  return /timeout exceeded when trying to connect/i.test(err.message);
}
