/**
 * Follows a monitor's outbox for WatchMonitor: every stored event after a sequence number, in
 * order, then new ones as they are written. It polls the store, because the writer of events is
 * often another process (`threadsight ingest`) whose commits only the shared file shows.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { MonitorStore, StoredEvent } from "./monitor-store.js";

/** Events read per store call. */
const READ_BATCH = 100;

/** What the follower yields: an event, or a tick saying the stream is alive with nothing new. */
export type Followed = { event: StoredEvent } | { idle: true };

/** Timing of a follower. */
export interface FollowTiming {
  /** Wait between two reads that found nothing, ms. */
  pollMs: number;
  /** Longest time without a message; an idle tick is yielded then, ms. */
  keepAliveMs: number;
}

/** Default timing: new events show within half a second; a tick every 15 s keeps proxies open. */
export const FOLLOW_TIMING: FollowTiming = Object.freeze({ pollMs: 500, keepAliveMs: 15_000 });

/**
 * Yields one idle tick at once (the stream is open), then the monitor's events after `afterSeq`
 * in order, then live ones, with an idle tick after each `keepAliveMs` of silence. Ends when
 * `signal` aborts or the monitor is deleted.
 */
export async function* followEvents(
  store: MonitorStore,
  monitorId: string,
  afterSeq: number,
  signal: AbortSignal,
  timing: FollowTiming = FOLLOW_TIMING,
): AsyncGenerator<Followed> {
  let seq = afterSeq;
  let lastSent = Date.now();
  yield { idle: true };
  while (!signal.aborted) {
    const events = await store.eventsAfter(monitorId, seq, READ_BATCH);
    for (const event of events) {
      seq = event.seq;
      lastSent = Date.now();
      yield { event };
    }
    if (events.length === READ_BATCH) continue;
    if ((await store.byId(monitorId)) === undefined) return;
    if (Date.now() - lastSent >= timing.keepAliveMs) {
      lastSent = Date.now();
      yield { idle: true };
    }
    try {
      await sleep(timing.pollMs, undefined, { signal });
    } catch {
      return;
    }
  }
}
