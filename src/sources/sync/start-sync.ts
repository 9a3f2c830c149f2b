/**
 * Wires the scheduler from configuration for `threadsight sync` and `threadsight serve --sync`:
 * the source store the config names, the connectors, the politeness limits, the metrics and the
 * same write path `threadsight ingest` uses (the given index, embedder and ingest enricher).
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Registry } from "prom-client";
import type { Config } from "../../config.js";
import type { PostWriteDeps } from "../../ingest/pipeline.js";
import { CONNECTORS } from "../connectors.js";
import { openSourceStore } from "../store/open-source-store.js";
import type { SourceStore } from "../store/source-store.js";
import type { PollSummary } from "./poll-source.js";
import type { SchedulerOptions } from "./scheduler.js";
import { runScheduler } from "./scheduler.js";
import { createSyncMetrics } from "./sync-metrics.js";

/** A running sync. */
export interface RunningSync {
  /** This instance's lease owner id (host, pid and a random part). */
  owner: string;
  store: SourceStore;
  /** Settles when the scheduler has stopped (after stop(), or after one round with `once`). */
  done: Promise<PollSummary[]>;
  /** Stops polling (polls in progress end at their next step) and closes the store. */
  stop(): Promise<void>;
}

/** Starts the scheduler over `write`; the caller owns (and closes) `write`'s components. */
export async function startSync(
  config: Config,
  write: PostWriteDeps,
  options: SchedulerOptions & { registry?: Registry; log: (line: string) => void },
): Promise<RunningSync> {
  const store = await openSourceStore(config);
  const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const controller = new AbortController();
  const done = runScheduler(
    {
      store,
      connectors: CONNECTORS,
      write,
      owner,
      leaseMs: config.syncLeaseSeconds * 1000,
      politeness: {
        userAgent: config.syncUserAgent,
        maxRequests: config.syncMaxRequestsPerPoll,
        timeoutMs: config.syncRequestTimeoutMs,
      },
      maxItemsPerPoll: config.syncMaxItemsPerPoll,
      metrics: options.registry === undefined ? undefined : createSyncMetrics(options.registry),
      log: options.log,
    },
    controller.signal,
    options,
  );
  let stopping: Promise<void> | undefined;
  return {
    owner,
    store,
    done,
    stop() {
      stopping ??= (async () => {
        controller.abort(new Error("sync stopped"));
        await done.catch(() => undefined);
        await store.close();
      })();
      return stopping;
    },
  };
}
