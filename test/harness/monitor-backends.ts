/**
 * The monitors store's backends for contract suites: SQLite in a temp dir, and PostgreSQL (with
 * its pg-boss queue) on a fresh database of the harness server. A suite runs once per backend;
 * the PostgreSQL run is skipped when no server can be had, and fails then under REQUIRE_POSTGRES=1
 * or CI (backend-policy.ts).
 *
 * Usage in a suite:
 *   for (const backend of await monitorBackends())
 *     describe(`... (${backend.name})`, { skip: backend.skip }, () => { ... backend.open() ... });
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import type { DeliveryRunner } from "../../src/monitors/delivery-worker.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import type { RunnerOptions } from "../../src/monitors/open-monitors.js";
import { openMonitors } from "../../src/monitors/open-monitors.js";
import { startPostgres } from "./postgres.js";

/** An open store of one backend and a runner factory tuned for tests. */
export interface OpenBackend {
  store: MonitorStore;
  /** A delivery runner; on PostgreSQL it polls pg-boss every 0.5 s and sweeps every 200 ms. */
  runner(deps: RunnerOptions): DeliveryRunner;
  close(): Promise<void>;
}

/** One backend a suite runs on. */
export interface MonitorBackend {
  name: "sqlite" | "postgres";
  /** Reason to skip, when the backend is missing. */
  skip: string | false;
  /** Opens a fresh, empty store. */
  open(): Promise<OpenBackend>;
  /** Service environment that selects this backend (DATABASE_URL of a fresh database, or none). */
  serviceEnv(): Promise<Record<string, string>>;
}

/** Both backends; the PostgreSQL server is stopped when the test file ends. */
export async function monitorBackends(): Promise<MonitorBackend[]> {
  const pg = await startPostgres();
  after(() => pg.stop());
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const open = async (databaseUrl: string | undefined): Promise<OpenBackend> => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-monitors-"));
    dirs.push(dataDir);
    const opened = await openMonitors({ dataDir, databaseUrl, delivers: true });
    return {
      store: opened.store,
      runner: (deps) => opened.runner({ pollSeconds: 0.5, sweepMs: 200, ...deps }),
      close: () => opened.store.close(),
    };
  };
  return [
    { name: "sqlite", skip: false, open: () => open(undefined), serviceEnv: async () => ({}) },
    {
      name: "postgres",
      skip: pg.skip ?? false,
      open: async () => open(await pg.createDatabase!()),
      serviceEnv: async () => ({ DATABASE_URL: await pg.createDatabase!() }),
    },
  ];
}
