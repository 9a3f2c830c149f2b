/**
 * Request ids: accepted from the client's X-Request-Id when it is a sane token (so a caller can
 * correlate across systems), generated otherwise. Returned on every response and put in logs.
 */
import { randomUUID } from "node:crypto";

/** Header carrying the request id, both directions. */
export const REQUEST_ID_HEADER = "x-request-id";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's id when acceptable, else a fresh UUID. */
export function requestIdFrom(value: string | string[] | undefined): string {
  const v = Array.isArray(value) ? value[0] : value;
  return v !== undefined && SAFE_ID.test(v) ? v : randomUUID();
}
