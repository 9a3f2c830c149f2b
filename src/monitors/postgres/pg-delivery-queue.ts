/**
 * The delivery runner for several instances on one PostgreSQL: pg-boss workers take lane jobs
 * and drain each lane head by head through claimHead's row lock. A sweep every few seconds queues
 * a job for every lane whose head is due, which picks up the lanes of an instance that died
 * mid-delivery (its lock went with its connection) without waiting for pg-boss to expire the job.
 */
import type { AttemptDeps } from "../delivery-attempt.js";
import { attemptDelivery } from "../delivery-attempt.js";
import type { DeliveryRunner } from "../delivery-worker.js";
import type { Lane } from "./lane-queue.js";
import { claimHead } from "./pg-lane-claim.js";
import { DUE_HEADS } from "./pg-monitor-rows.js";
import type { PgMonitorStore } from "./pg-monitor-store.js";

/** Deliveries one job sends from its lane before handing the rest to a fresh job. */
const LANE_BUDGET = 20;

/** Lanes one sweep queues at most. */
const SWEEP_LIMIT = 1000;

/** What the runner needs. */
export interface PgDeliveryDeps extends AttemptDeps {
  store: PgMonitorStore;
  /** pg-boss workers in this process, each sending one delivery at a time. */
  concurrency?: number;
  /** How often an idle worker asks for a job, s (pg-boss allows 0.5 and up). */
  pollSeconds?: number;
  /** How often due lanes are swept into the queue, ms. */
  sweepMs?: number;
  onError?: (err: unknown) => void;
}

/** Delivers through pg-boss until stopped. */
export class PgDeliveryQueue implements DeliveryRunner {
  private workers: Promise<string[]> | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<number>>();
  private stopped = false;

  constructor(private readonly deps: PgDeliveryDeps) {}

  start(): void {
    if (this.workers !== undefined) return;
    const { store } = this.deps;
    this.workers = store.queue.work(this.deps.concurrency ?? 8, this.deps.pollSeconds ?? 1, async (lane) => {
      await this.track(this.drain(lane));
    });
    this.workers.catch((err: unknown) => this.deps.onError?.(err));
    this.sweeper = setInterval(() => {
      this.sweep().catch((err: unknown) => this.deps.onError?.(err));
    }, this.deps.sweepMs ?? 5_000);
    this.sweeper.unref();
  }

  /** Sends every due lane head now, in this process (tests and one-off passes). */
  async tick(): Promise<number> {
    const lanes = await this.dueLanes();
    const sent = await Promise.all(lanes.map((l) => this.track(this.drain(l, 1))));
    return sent.reduce((a, b) => a + b, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    if (this.workers !== undefined) await this.deps.store.queue.offWork(await this.workers.catch(() => []));
    await Promise.allSettled([...this.inFlight]);
  }

  private track(p: Promise<number>): Promise<number> {
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  private async dueLanes(): Promise<Lane[]> {
    const clock = this.deps.clock ?? Date.now;
    const { rows } = await this.deps.store.pool.query<{ monitor_id: string; channel_index: number }>(
      `SELECT monitor_id, channel_index FROM (${DUE_HEADS}) d ORDER BY next_at LIMIT $2`,
      [clock(), SWEEP_LIMIT],
    );
    return rows.map((r) => ({ monitorId: r.monitor_id, channelIndex: r.channel_index }));
  }

  private async sweep(): Promise<void> {
    if (this.stopped) return;
    const lanes = await this.dueLanes();
    await this.deps.store.queue.enqueue(this.deps.store.pool, lanes);
  }

  /** Sends a lane's due heads in order, at most `budget` of them; returns how many were attempted. */
  private async drain(lane: Lane, budget = LANE_BUDGET): Promise<number> {
    const { store } = this.deps;
    const clock = this.deps.clock ?? Date.now;
    let sent = 0;
    while (sent < budget) {
      if (this.stopped) return sent;
      const claim = await claimHead(store.pool, store.queue, lane, clock());
      if (claim.kind === "none") return sent;
      if (claim.kind === "later") {
        await store.queue.enqueue(store.pool, [lane], claim.at);
        return sent;
      }
      try {
        await attemptDelivery(this.deps, claim.sink, claim.monitor, claim.delivery);
      } catch (err) {
        await claim.abandon().catch(() => undefined);
        throw err;
      }
      await claim.settle();
      sent += 1;
    }
    // More may be waiting: a fresh job lets other lanes' jobs go first.
    await store.queue.enqueue(store.pool, [lane]);
    return sent;
  }
}
