/**
 * Rows of the PostgreSQL monitors store as node-postgres returns them (bigint columns arrive as
 * text), their conversion to the store's types, and the one query both the store's `due` and the
 * lane sweep use: the head of each unpaused lane whose time has come.
 */
import { monitorFromColumns } from "../monitor-row.js";
import type { StoredMonitor } from "../monitor-spec.js";
import type { AttemptRecord, DueDelivery, ListedAttempt, StoredEvent } from "../monitor-store.js";
import { eventIdOf } from "../monitor-store.js";

/** A monitors row. */
export interface MonitorRow {
  id: string;
  account_id: string;
  spec: string;
  paused: boolean;
  paused_reason: string;
  secret: string;
  previous_secret: string;
  previous_secret_until: string;
  created: string;
  updated: string;
}

/** A monitor_events row. */
export interface EventRow {
  seq: string;
  monitor_id: string;
  post_id: string;
  payload: string;
  created: string;
}

/** A lane head: its event row with the delivery's columns. */
export interface HeadRow extends EventRow {
  channel_index: number;
  attempts: number;
  window_start: string;
}

interface AttemptRow {
  id: string;
  seq: string;
  monitor_id: string;
  channel: string;
  attempt: number;
  status: AttemptRecord["status"];
  response_code: number;
  latency_ms: number;
  at: string;
  error: string;
}

/**
 * The head delivery of each unpaused lane that is due at $1. Only a lane's head may go: that is
 * what keeps order per monitor channel.
 */
export const DUE_HEADS = `
  SELECT d.* FROM monitor_deliveries d JOIN monitors m ON m.id = d.monitor_id AND NOT m.paused
   WHERE d.state = 'pending' AND d.next_at <= $1
     AND d.seq = (SELECT MIN(h.seq) FROM monitor_deliveries h
                   WHERE h.state = 'pending' AND h.monitor_id = d.monitor_id AND h.channel_index = d.channel_index)`;

/** The monitor a row holds. */
export function toMonitor(r: MonitorRow): StoredMonitor {
  return monitorFromColumns({
    ...r,
    previous_secret_until: Number(r.previous_secret_until),
    created: Number(r.created),
    updated: Number(r.updated),
  });
}

/** The event a row holds. */
export function toEvent(r: EventRow): StoredEvent {
  const seq = Number(r.seq);
  return {
    id: eventIdOf(seq),
    seq,
    monitorId: r.monitor_id,
    postId: r.post_id,
    payload: r.payload,
    created: Number(r.created),
  };
}

/** The due delivery a head row holds; its retry window starts at the later of creation and the last deferral. */
export function toDue(r: HeadRow): DueDelivery {
  const event = toEvent(r);
  return {
    event,
    channelIndex: r.channel_index,
    attempts: r.attempts,
    windowStart: Math.max(event.created, Number(r.window_start)),
  };
}

/** The attempt a row holds. */
export function toAttempt(r: AttemptRow): ListedAttempt {
  return {
    id: Number(r.id),
    eventId: eventIdOf(Number(r.seq)),
    monitorId: r.monitor_id,
    channel: r.channel,
    attempt: r.attempt,
    status: r.status,
    responseCode: r.response_code,
    latencyMs: r.latency_ms,
    at: Number(r.at),
    error: r.error,
  };
}
