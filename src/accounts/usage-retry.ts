/**
 * Usage metering that survives an accounts-store outage. A metered call is admitted and
 * counted by the limiter before it runs; its row in the usage table is written on the side.
 * When that write fails because the store cannot be reached at all (`neverSent`), the
 * increment is kept in memory, summed per (key, day, operation), and written when the store
 * answers again, so the usage table ends up with every call exactly once. A write that fails
 * any other way (connection lost mid-statement) may or may not have been applied; it is
 * reported and dropped rather than retried, because a retry could count the call twice.
 * Pending increments are lost if the process dies during the outage (they are in the limiter's
 * quota count, but not in the usage history).
 */
import type { AccountsStore } from "./store.js";
import { neverSent } from "./store-unavailable.js";

/** Most distinct (key, day, operation) rows held while the store is down. */
const MAX_PENDING_ROWS = 100_000;
/** How often pending increments are retried, ms. */
const RETRY_EVERY_MS = 1_000;

/** What happened to an increment that could not be written at once. */
export type UsageWriteEvent =
  | { kind: "queued"; keyId: string; operation: string; err: unknown }
  | { kind: "dropped"; keyId: string; operation: string; n: number; err: unknown }
  | { kind: "flushed"; rows: number };

/** recordUsage with outage buffering, plus the buffer's controls. */
export interface RetryingUsage extends Pick<AccountsStore, "recordUsage"> {
  /** Increments waiting for the store. */
  readonly pending: number;
  /** Tries to write everything pending now; resolves when the attempt is over. */
  flush(): Promise<void>;
  /** One last flush, then stops the retry timer. */
  close(): Promise<void>;
}

/** Wraps `store.recordUsage`; `onEvent` hears about queued, dropped and flushed increments. */
export function retryingUsage(
  store: Pick<AccountsStore, "recordUsage">,
  onEvent: (e: UsageWriteEvent) => void = () => {},
): RetryingUsage {
  const pending = new Map<string, { keyId: string; day: string; operation: string; n: number }>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;

  const queue = (keyId: string, day: string, operation: string, n: number, err: unknown): void => {
    const k = JSON.stringify([keyId, day, operation]);
    const row = pending.get(k);
    if (row) row.n += n;
    else if (pending.size >= MAX_PENDING_ROWS) return onEvent({ kind: "dropped", keyId, operation, n, err });
    else pending.set(k, { keyId, day, operation, n });
    onEvent({ kind: "queued", keyId, operation, err });
    if (timer === undefined) {
      timer = setInterval(() => void flush(), RETRY_EVERY_MS);
      timer.unref();
    }
  };

  const flushOnce = async (): Promise<void> => {
    let rows = 0;
    for (const [k, row] of [...pending]) {
      // Taken out before the write: an increment arriving meanwhile starts a fresh row.
      pending.delete(k);
      try {
        await store.recordUsage(row.keyId, row.day, row.operation, row.n);
        rows++;
      } catch (err) {
        if (neverSent(err)) {
          queue(row.keyId, row.day, row.operation, row.n, err);
          break;
        }
        onEvent({ kind: "dropped", keyId: row.keyId, operation: row.operation, n: row.n, err });
      }
    }
    if (rows > 0) onEvent({ kind: "flushed", rows });
    if (pending.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const flush = (): Promise<void> => (flushing ??= flushOnce().finally(() => (flushing = undefined)));

  return {
    get pending() {
      return [...pending.values()].reduce((sum, r) => sum + r.n, 0);
    },
    async recordUsage(keyId, day, operation, n) {
      try {
        await store.recordUsage(keyId, day, operation, n);
      } catch (err) {
        if (!neverSent(err)) throw err;
        queue(keyId, day, operation, n, err);
      }
    },
    flush,
    async close() {
      if (pending.size > 0) await flush();
      clearInterval(timer);
      timer = undefined;
    },
  };
}
