/**
 * Where monitors, their outbox of events, and the delivery attempts live. The outbox is the
 * durable half of "never lost": an event row and one delivery row per channel are written in one
 * transaction, before the ingest checkpoint moves past the post, so a crash at any point leaves
 * either no event (the post is re-read and matched again) or a pending delivery.
 */
import type { StoredMonitor } from "./monitor-spec.js";

/** An event to append: one post matched by one monitor. */
export interface NewEvent {
  monitorId: string;
  postId: string;
  /** The event body minus id, monitor id and time (post and reason), as JSON text. */
  payload: string;
  /** Channel indexes of the monitor that get a delivery row. */
  channels: number;
}

/** A stored event. */
export interface StoredEvent {
  id: string;
  seq: number;
  monitorId: string;
  postId: string;
  payload: string;
  created: number;
}

/** A delivery due now: the oldest undelivered event of one monitor's channel. */
export interface DueDelivery {
  event: StoredEvent;
  channelIndex: number;
  /** Attempts made so far. */
  attempts: number;
  /**
   * Epoch ms the retry window counts from: the event's creation, or the time a deferral (daily
   * limit, digest period) last moved the delivery to, so a wait is never spent as retry time.
   */
  windowStart: number;
}

/** One attempt, as ListDeliveries shows it. */
export interface AttemptRecord {
  eventId: string;
  monitorId: string;
  channel: string;
  attempt: number;
  /** "deferred": not sent, held back by the plan's daily delivery limit (error says until when). */
  status: "delivered" | "failed" | "dead_lettered" | "deferred";
  responseCode: number;
  latencyMs: number;
  at: number;
  error: string;
}

/** A stored attempt with its row number, which orders attempts and positions a page. */
export interface ListedAttempt extends AttemptRecord {
  id: number;
}

/** Where a page of monitors ends: the last monitor's creation time and id. */
export interface MonitorPosition {
  created: number;
  id: string;
}

/** The outcome of an attempt for its delivery row. */
export type AttemptOutcome = { kind: "delivered" } | { kind: "retry"; at: number } | { kind: "dead" };

/** The monitors store; SQLite (embedded) implements it. */
export interface MonitorStore {
  create(m: StoredMonitor): Promise<void>;
  get(accountId: string, id: string): Promise<StoredMonitor | undefined>;
  /** A monitor by id alone, for the delivery workers. */
  byId(id: string): Promise<StoredMonitor | undefined>;
  /** Monitors of the account, oldest first (by created, then id), after the one at `after`. */
  list(accountId: string, after: MonitorPosition | undefined, limit: number): Promise<StoredMonitor[]>;
  /** Replaces a monitor's row (same id and account). */
  update(m: StoredMonitor): Promise<void>;
  /** Deletes a monitor with its events and deliveries; false when it did not exist. */
  delete(accountId: string, id: string): Promise<boolean>;
  /** Monitors of the account that are not paused. */
  countActive(accountId: string): Promise<number>;
  /** Every monitor that is not paused, of every account. */
  active(): Promise<StoredMonitor[]>;
  /** A number that changes whenever any monitor does; the matcher reloads when it moves. */
  version(): Promise<number>;
  /** Appends events (one transaction); a (monitor, post) pair already in the outbox is skipped. Returns the new events. */
  append(events: readonly NewEvent[], now: number): Promise<StoredEvent[]>;
  /** Events of a monitor after sequence `afterSeq`, in order. */
  eventsAfter(monitorId: string, afterSeq: number, limit: number): Promise<StoredEvent[]>;
  /** The last event sequence number of a monitor, 0 when it has none. */
  lastSeq(monitorId: string): Promise<number>;
  getEvent(monitorId: string, eventId: string): Promise<StoredEvent | undefined>;
  /** The head delivery of each monitor channel whose time has come, up to `limit`. */
  due(now: number, limit: number): Promise<DueDelivery[]>;
  /** Records an attempt and moves its delivery row on (one transaction). */
  recordAttempt(a: AttemptRecord, channelIndex: number, outcome: AttemptOutcome): Promise<void>;
  /** Records one attempt per event of a digest and moves all their delivery rows on (one transaction). */
  recordAttempts(records: readonly AttemptRecord[], channelIndex: number, outcome: AttemptOutcome): Promise<void>;
  /**
   * Holds a pending delivery until `at` without counting an attempt (its retry window then starts
   * at `at`); `note` is recorded as a "deferred" row for ListDeliveries when given.
   */
  defer(eventId: string, channelIndex: number, at: number, note?: AttemptRecord): Promise<void>;
  /** Pending events of one monitor channel created before `createdBefore`, oldest first (a digest's content). */
  pendingEvents(monitorId: string, channelIndex: number, createdBefore: number, limit: number): Promise<StoredEvent[]>;
  /** Attempts of a monitor, newest first, older than the attempt numbered `before` when given. */
  attempts(monitorId: string, status: string, before: number | undefined, limit: number): Promise<ListedAttempt[]>;
  /** Queues an event again on every channel; false when it is not the monitor's. */
  redeliver(monitorId: string, eventId: string, now: number): Promise<boolean>;
  /** Pauses a monitor with a reason the owner can read. */
  pause(monitorId: string, reason: string, now: number): Promise<void>;
  close(): Promise<void>;
}

/** Event ids sort in write order: "evt_" and the sequence number in fixed-width base 36. */
export function eventIdOf(seq: number): string {
  return `evt_${seq.toString(36).padStart(10, "0")}`;
}

/** The sequence number of an event id, or undefined when it is not one. */
export function seqOfEventId(id: string): number | undefined {
  const m = /^evt_([0-9a-z]{10})$/.exec(id);
  if (m === null) return undefined;
  const n = parseInt(m[1]!, 36);
  return Number.isSafeInteger(n) ? n : undefined;
}
