/**
 * Chooses the monitors store and its delivery runner from configuration, as the accounts store is
 * chosen: PostgreSQL with the pg-boss queue when DATABASE_URL is set (several instances share the
 * outbox and the work), otherwise SQLite in the data directory with the polling runner.
 */
import path from "node:path";
import type { DeliveryDeps, DeliveryRunner } from "./delivery-worker.js";
import { DeliveryWorker } from "./delivery-worker.js";
import type { MonitorStore } from "./monitor-store.js";
import { LaneQueue } from "./postgres/lane-queue.js";
import type { PgDeliveryDeps } from "./postgres/pg-delivery-queue.js";
import { PgDeliveryQueue } from "./postgres/pg-delivery-queue.js";
import type { PgMonitorStore } from "./postgres/pg-monitor-store.js";
import { openPgMonitorStore } from "./postgres/pg-monitor-store.js";
import { MONITORS_DB_FILE, openSqliteMonitorStore } from "./sqlite-monitor-store.js";

/** Options of either runner; each reads its own. */
export type RunnerOptions = Omit<DeliveryDeps, "store"> & Omit<PgDeliveryDeps, "store">;

/** An open store and how to deliver from it. */
export interface OpenMonitors {
  store: MonitorStore;
  backend: "sqlite" | "postgres";
  /** A runner for this store (not started). */
  runner(deps: RunnerOptions): DeliveryRunner;
}

/** Where the store lives and who opens it. */
export interface MonitorsLocation {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** True in servers: this process runs pg-boss maintenance and delivers. */
  delivers: boolean;
  onError?: (err: unknown) => void;
}

/** The runner for a store opened here. */
export function runnerFor(store: MonitorStore, deps: RunnerOptions): DeliveryRunner {
  if ("queue" in store) return new PgDeliveryQueue({ ...deps, store: store as PgMonitorStore });
  return new DeliveryWorker({ ...deps, store });
}

/** Opens (creating or migrating) the configured store. */
export async function openMonitors(location: MonitorsLocation): Promise<OpenMonitors> {
  const onError = location.onError ?? (() => undefined);
  if (location.databaseUrl !== undefined && location.databaseUrl !== "") {
    const queue = await LaneQueue.open(location.databaseUrl, { supervise: location.delivers, onError });
    let store: PgMonitorStore;
    try {
      store = await openPgMonitorStore(location.databaseUrl, queue);
    } catch (err) {
      await queue.close().catch(() => undefined);
      throw err;
    }
    return { store, backend: "postgres", runner: (deps) => runnerFor(store, deps) };
  }
  const store = openSqliteMonitorStore(path.join(location.dataDir, MONITORS_DB_FILE));
  return { store, backend: "sqlite", runner: (deps) => runnerFor(store, deps) };
}
