/**
 * Fail fast when the engine is gone. weaviate-client retries UNAVAILABLE gRPC calls five times
 * with exponential backoff (not configurable), so a query to a dead server would otherwise hang
 * until the caller's deadline and surface as 504 instead of 503. A healthy query finishes long
 * before WATCH_AFTER_MS, so the watch costs nothing then; a slow one triggers a cheap HTTP
 * liveness probe. A probe that fails (refused, reset, "not live") rejects the call with
 * IndexUnavailableError at once. A probe that merely does not answer in time must do so
 * {@link TIMEOUTS_BEFORE_DOWN} times in a row: a busy server on a loaded machine (or this
 * process's own event loop, stalled for a second by CPU work such as an ingest batch) misses
 * one probe deadline without being gone, and a single miss used to abort long imports.
 */
import { IndexUnavailableError } from "../search-index.js";

/** When a still-running call starts being watched, ms. */
export const WATCH_AFTER_MS = 750;
/** Interval between probes while it keeps running, ms; also each probe's timeout. */
export const WATCH_EVERY_MS = 1000;
/** Consecutive unanswered probes that count as a hung engine. */
export const TIMEOUTS_BEFORE_DOWN = 3;

/** Resolves or rejects with `work`, unless `isLive` reports the engine down first. */
export function watchLiveness<T>(
  engine: string,
  work: Promise<T>,
  isLive: () => Promise<boolean>,
  afterMs = WATCH_AFTER_MS,
  everyMs = WATCH_EVERY_MS,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let timeouts = 0;
    const finish = (): void => {
      settled = true;
      clearTimeout(timer);
    };
    const check = async (): Promise<void> => {
      let live: boolean | "timeout";
      let probeTimer: NodeJS.Timeout | undefined;
      try {
        live = await Promise.race([
          isLive(),
          new Promise<"timeout">((r) => (probeTimer = setTimeout(() => r("timeout"), everyMs))),
        ]);
      } catch {
        live = false;
      } finally {
        clearTimeout(probeTimer);
      }
      if (settled) return;
      timeouts = live === "timeout" ? timeouts + 1 : 0;
      if (live === false || timeouts >= TIMEOUTS_BEFORE_DOWN) {
        finish();
        reject(new IndexUnavailableError(`${engine} is not reachable`));
        return;
      }
      timer = setTimeout(() => void check(), everyMs);
    };
    timer = setTimeout(() => void check(), afterMs);
    work.then(
      (value) => {
        if (settled) return;
        finish();
        resolve(value);
      },
      (err: unknown) => {
        if (settled) return;
        finish();
        reject(err);
      },
    );
  });
}
