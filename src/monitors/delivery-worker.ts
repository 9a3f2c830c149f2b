/**
 * The embedded delivery runner: polls the SQLite outbox and pushes each event to its monitor's
 * channels, in order per monitor channel (only the head of each queue is sent), at least once (a
 * delivery row is marked delivered only after the receiver answered 2xx, so a crash mid-send
 * sends it again). One process owns the file's deliveries; several instances use PostgreSQL and
 * its queue (src/monitors/postgres/pg-delivery-queue.ts).
 *
 * Retries back off exponentially with jitter (retry-schedule.ts) for the policy's window after
 * the event was written; then the event is dead-lettered (visible in ListDeliveries) and the
 * monitor is paused with a reason its owner can read, since its endpoint kept failing meanwhile.
 *
 * Two things hold a delivery back without counting an attempt: the plan's daily delivery budget
 * (the delivery waits for the next UTC day, with a "deferred" row saying so) and an e-mail
 * digest's period (its events wait for the period's end, then go out as one message, all marked
 * delivered only once the SMTP server accepted it).
 */

import type { AttemptDeps } from "./delivery-attempt.js";
import { attemptDelivery } from "./delivery-attempt.js";
import type { DueDelivery, MonitorStore } from "./monitor-store.js";

/** What the workers need. */
export interface DeliveryDeps extends AttemptDeps {
  store: MonitorStore;
  /** How often the outbox is polled when idle, ms. */
  pollMs?: number;
  /** Deliveries sent at once (each from a different monitor channel). */
  concurrency?: number;
}

/** A delivery runner as the service drives it: started with the server, stopped at shutdown. */
export interface DeliveryRunner {
  /** Starts delivering in the background. */
  start(): void;
  /** One pass over what is due now; returns the deliveries attempted. */
  tick(): Promise<number>;
  /** Stops and waits for the deliveries in flight. */
  stop(): Promise<void>;
}

/** Runs the workers until stopped. */
export class DeliveryWorker implements DeliveryRunner {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly deps: DeliveryDeps) {}

  /** Starts polling. */
  start(): void {
    this.loop ??= this.run();
  }

  /** One pass over what is due now; returns the deliveries attempted. */
  async tick(): Promise<number> {
    const { store } = this.deps;
    const clock = this.deps.clock ?? Date.now;
    const due = await store.due(clock(), this.deps.concurrency ?? 16);
    await Promise.all(due.map((d) => this.deliver(d)));
    return due.length;
  }

  private async deliver(d: DueDelivery): Promise<void> {
    const { store } = this.deps;
    const m = await store.byId(d.event.monitorId);
    if (m === undefined) return;
    await attemptDelivery(this.deps, store, m, d);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let n = 0;
      try {
        n = await this.tick();
      } catch (err) {
        this.deps.onError?.(err);
      }
      if (n === 0 && !this.stopped) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.deps.pollMs ?? 250);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
  }

  /** Stops polling and waits for the deliveries in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }
}
