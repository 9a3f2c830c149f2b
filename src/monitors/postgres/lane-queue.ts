/**
 * The pg-boss queue that hands monitor channels ("lanes") to delivery workers across instances.
 * A job says "lane L has work"; the deliveries themselves stay in monitor_deliveries, which keeps
 * their order and state. Jobs are inserted in the transaction that made the work (an append, a
 * retry, a redelivery), so a wake-up exists exactly when its work committed.
 *
 * The queue's `short` policy keeps at most one waiting job per singleton key, so a busy lane does
 * not pile up jobs; timed wake-ups (a retry's backoff) use a second key per lane, so a due-now
 * wake-up is never swallowed by one waiting for later. pg-boss's `singleton`/`stately` policies
 * are not used: in this pg-boss line, a fetch whose oldest job's key is already active fails as a
 * whole, which would stall every lane behind one slow receiver (docs/decisions/0015).
 */

import type pg from "pg";
import PgBoss from "pg-boss";

/** Name of the pg-boss queue. */
export const DELIVERY_QUEUE = "threadsight-monitor-deliveries";

/** One monitor channel: deliveries in it go out one at a time, in event order. */
export interface Lane {
  monitorId: string;
  channelIndex: number;
}

/** Anything that runs a statement: the pool, or a transaction's client. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

/** How a job expires when its worker dies without finishing it, and how pg-boss retries it. */
const JOB_EXPIRE_SECONDS = 300;
const JOB_RETRY_LIMIT = 20;
const JOB_RETRY_DELAY_SECONDS = 5;

function laneKey(l: Lane): string {
  return `${l.monitorId}/${l.channelIndex}`;
}

/** What the queue needs to start. */
export interface LaneQueueOptions {
  /** Run pg-boss maintenance (expiring jobs of dead workers, archiving) from this process. */
  supervise: boolean;
  onError: (err: unknown) => void;
}

/** pg-boss under the lanes. */
export class LaneQueue {
  private constructor(private readonly boss: PgBoss) {}

  /** Starts pg-boss on `url` (installing or upgrading its schema) and creates the queue. */
  static async open(url: string, options: LaneQueueOptions): Promise<LaneQueue> {
    const boss = new PgBoss({
      connectionString: url,
      max: 4,
      application_name: "threadsight-monitors",
      supervise: options.supervise,
      schedule: false,
      migrate: true,
      maintenanceIntervalSeconds: 30,
    });
    boss.on("error", options.onError);
    await boss.start();
    try {
      await boss.createQueue(DELIVERY_QUEUE, {
        name: DELIVERY_QUEUE,
        policy: "short",
        expireInSeconds: JOB_EXPIRE_SECONDS,
        retryLimit: JOB_RETRY_LIMIT,
        retryDelay: JOB_RETRY_DELAY_SECONDS,
        retryBackoff: true,
      });
    } catch (err) {
      await boss.stop({ graceful: false }).catch(() => undefined);
      throw err;
    }
    return new LaneQueue(boss);
  }

  /**
   * Queues a wake-up for each lane through `db` (a transaction's client makes it part of that
   * transaction). With `at` in the future the job waits until then.
   */
  async enqueue(db: Queryable, lanes: readonly Lane[], at?: number): Promise<void> {
    const unique = [...new Map(lanes.map((l) => [laneKey(l), l])).values()];
    if (unique.length === 0) return;
    const later = at !== undefined && at > Date.now();
    await this.boss.insert(
      unique.map((l) => ({
        name: DELIVERY_QUEUE,
        data: { monitorId: l.monitorId, channelIndex: l.channelIndex },
        singletonKey: later ? `${laneKey(l)}/retry` : laneKey(l),
        ...(later ? { startAfter: new Date(at).toISOString() } : {}),
      })),
      { db: { executeSql: (text: string, values: unknown[]) => db.query(text, values) } },
    );
  }

  /**
   * Runs `handle` for each fetched lane on `workers` pg-boss workers (one job each at a time, so
   * a slow receiver holds one worker, not a batch). Returns the worker ids for `offWork`.
   */
  async work(workers: number, pollSeconds: number, handle: (lane: Lane) => Promise<void>): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < workers; i++) {
      ids.push(
        await this.boss.work<Lane>(
          DELIVERY_QUEUE,
          { batchSize: 1, pollingIntervalSeconds: pollSeconds },
          async (jobs) => {
            for (const job of jobs) await handle(job.data);
          },
        ),
      );
    }
    return ids;
  }

  /** Stops the workers with these ids (jobs in flight finish). */
  async offWork(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.boss.offWork({ id });
  }

  /** Stops pg-boss and closes its connections. */
  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, close: true });
  }
}
