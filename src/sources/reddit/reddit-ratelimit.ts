/**
 * Reddit's rate-limit window, remembered per OAuth app across polls: the limit belongs to the
 * client id, not to one poll, so a poll starting while the last one left no request in the
 * window waits for its reset too.
 */
import type { PoliteHttpClient } from "../http/polite-client.js";

const exhaustedUntil = new Map<string, number>();

/** Reads `X-Ratelimit-Remaining` / `X-Ratelimit-Reset` (seconds) from an answer of app `clientId`. */
export function noteRedditLimit(clientId: string, headers: Headers, now: number): void {
  const remaining = Number(headers.get("x-ratelimit-remaining") ?? Number.NaN);
  const reset = Number(headers.get("x-ratelimit-reset") ?? Number.NaN);
  if (remaining < 1 && reset > 0) exhaustedUntil.set(clientId, now + reset * 1000);
}

/** Holds the poll's API requests back while app `clientId` has none left in its window. */
export function respectRedditLimit(clientId: string, http: PoliteHttpClient, key: string, now: number): void {
  const until = exhaustedUntil.get(clientId);
  if (until === undefined) return;
  if (until <= now) exhaustedUntil.delete(clientId);
  else http.pause(key, until - now);
}
