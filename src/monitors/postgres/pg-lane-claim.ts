/**
 * Claiming the head of a lane on PostgreSQL. The claim is a row lock on the lane's oldest pending
 * delivery (FOR UPDATE SKIP LOCKED), held in an open transaction while the receiver is called and
 * released by the COMMIT that records the attempt. So one delivery of a lane is in flight at a
 * time across every instance (no double delivery), the next one can be claimed only after the
 * previous one left the pending state (order), and a worker that dies mid-send loses its
 * connection, which releases the lock and leaves the delivery pending for another (at least once).
 */
import type pg from "pg";
import type { AttemptSink } from "../delivery-attempt.js";
import type { StoredMonitor } from "../monitor-spec.js";
import type { DueDelivery } from "../monitor-store.js";
import type { Lane, LaneQueue } from "./lane-queue.js";
import type { HeadRow, MonitorRow } from "./pg-monitor-rows.js";
import { toDue, toMonitor } from "./pg-monitor-rows.js";
import { deferOn, pauseOn, pendingEventsOn, recordAttemptsOn } from "./pg-monitor-store.js";

/** A lane head held by this worker until settled. */
export interface HeldDelivery {
  kind: "held";
  monitor: StoredMonitor;
  delivery: DueDelivery;
  /**
   * Where the attempt reads a digest's events and writes its outcome, inside the held transaction;
   * a retry or deferral also queues the lane's timed wake-up there.
   */
  sink: AttemptSink;
  /** Commits what was written through `sink` and releases the head. */
  settle(): Promise<void>;
  /** Gives the head back untouched. */
  abandon(): Promise<void>;
}

/** What a claim found: the head held, a head not due before `at`, or nothing for this worker. */
export type Claim = HeldDelivery | { kind: "later"; at: number } | { kind: "none" };

/**
 * Claims lane `lane`'s head if it is due at `now`. "none" covers an empty lane, a paused or
 * deleted monitor, and a head another worker holds (that worker carries on with the lane).
 */
export async function claimHead(pool: pg.Pool, queue: LaneQueue, lane: Lane, now: number): Promise<Claim> {
  const client = await pool.connect();
  let open = true;
  const finish = async (sql: "COMMIT" | "ROLLBACK"): Promise<void> => {
    if (!open) return;
    open = false;
    try {
      await client.query(sql);
      client.release();
    } catch (err) {
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(err as Error);
      throw err;
    }
  };
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<HeadRow & { next_at: string }>(
      `SELECT d.channel_index, d.attempts, d.next_at, d.window_start, e.* FROM monitor_deliveries d JOIN monitor_events e ON e.seq = d.seq
        WHERE d.monitor_id = $1 AND d.channel_index = $2 AND d.state = 'pending'
          AND d.seq = (SELECT MIN(h.seq) FROM monitor_deliveries h
                        WHERE h.monitor_id = $1 AND h.channel_index = $2 AND h.state = 'pending')
        FOR UPDATE OF d SKIP LOCKED`,
      [lane.monitorId, lane.channelIndex],
    );
    const head = rows[0];
    if (head === undefined) {
      await finish("ROLLBACK");
      return { kind: "none" };
    }
    const m = (await client.query<MonitorRow>("SELECT * FROM monitors WHERE id = $1", [lane.monitorId])).rows[0];
    if (m === undefined || m.paused) {
      await finish("ROLLBACK");
      return { kind: "none" };
    }
    const nextAt = Number(head.next_at);
    if (nextAt > now) {
      await finish("ROLLBACK");
      return { kind: "later", at: nextAt };
    }
    const delivery: DueDelivery = toDue(head);
    const sink: AttemptSink = {
      pendingEvents: (monitorId, channelIndex, createdBefore, limit) =>
        pendingEventsOn(client, monitorId, channelIndex, createdBefore, limit),
      defer: (eventId, channelIndex, at, note) => deferOn(client, queue, eventId, channelIndex, at, note),
      async recordAttempts(records, channelIndex, outcome) {
        await recordAttemptsOn(client, records, channelIndex, outcome);
        if (outcome.kind === "retry") await queue.enqueue(client, [lane], outcome.at);
      },
      pause: (monitorId, reason, at) => pauseOn(client, monitorId, reason, at),
    };
    return {
      kind: "held",
      monitor: toMonitor(m),
      delivery,
      sink,
      settle: () => finish("COMMIT"),
      abandon: () => finish("ROLLBACK"),
    };
  } catch (err) {
    if (open) {
      open = false;
      await client.query("ROLLBACK").catch(() => undefined);
      client.release(err as Error);
    }
    throw err;
  }
}
