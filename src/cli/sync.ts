import { Registry } from "prom-client";
import { ConfigError, loadConfig } from "../config.js";
import { createEmbedder } from "../enrich/create-embedder.js";
import type { Embedder } from "../enrich/embedder.js";
import { openSearchIndex } from "../index/open-index.js";
import type { SearchIndex } from "../index/search-index.js";
import type { IngestEnricher } from "../ingest/ingest-enricher.js";
import { createIngestEnricher } from "../ingest/ingest-enricher.js";
import { monitorPercolator } from "../monitors/monitor-percolator.js";
import type { MonitorStore } from "../monitors/monitor-store.js";
import { openMonitors } from "../monitors/open-monitors.js";
import { formatPollSummary } from "../sources/sync/poll-source.js";
import type { RunningSync } from "../sources/sync/start-sync.js";
import { startSync } from "../sources/sync/start-sync.js";
import { closeAll } from "./close-all.js";
import { parseSubcommand, UsageError } from "./store-command.js";

const HELP = `usage: threadsight sync [--once]

Polls every live source (\`threadsight sources list\`) on its schedule and writes new and
changed posts into the index, as \`threadsight ingest\` does. Runs until SIGINT/SIGTERM.
  --once   poll each due source once, then exit (for cron, or to catch up by hand)
Several \`sync\` processes (or servers with --sync) on one PostgreSQL (DATABASE_URL) share the
sources: each source is polled by one of them at a time.`;

/** Entry point (registered in main.ts). */
export async function run(argv: string[]): Promise<number> {
  const err = (line: string): void => void process.stderr.write(line + "\n");
  let once = false;
  try {
    const p = parseSubcommand("sync", argv, { once: { type: "boolean" } }, 0);
    if (p.values["help"] === true) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    once = p.values["once"] === true;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`threadsight ${e.message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err(`threadsight sync: ${e.message}`);
      return 2;
    }
    throw e;
  }
  let embedder: Embedder | undefined;
  let index: SearchIndex | undefined;
  let enricher: IngestEnricher | undefined;
  let monitors: MonitorStore | undefined;
  let sync: RunningSync | undefined;
  let failedPolls = 0;
  const stopWith = (name: string) => (): void => {
    err(`threadsight sync: ${name} received; stopping after the batch being written`);
    void sync?.stop();
  };
  const onInt = stopWith("SIGINT");
  const onTerm = stopWith("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  let code = 0;
  try {
    embedder = await createEmbedder(config);
    index = await openSearchIndex(config, { indexing: "live" });
    await index.open(embedder.model, embedder.dimensions);
    enricher = await createIngestEnricher(config.dataDir, embedder);
    // Live posts are matched against the monitors, as `threadsight ingest` matches its posts.
    monitors = (await openMonitors({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, delivers: false }))
      .store;
    const upserted = monitorPercolator({
      store: monitors,
      embedder,
      alphas: { hybridAlpha: config.hybridAlpha, shortQueryAlpha: config.shortQueryAlpha },
    });
    sync = await startSync(
      config,
      { index, embedder, enricher, upserted, origin: "sync" },
      {
        once,
        registry: new Registry(),
        log: err,
        onPoll: (summary) => {
          if (summary.error !== undefined) failedPolls += 1;
          process.stdout.write(formatPollSummary(summary) + "\n");
        },
        onStoreError: (e) => err(`threadsight sync: source store: ${(e as Error).message}`),
      },
    );
    err(
      `threadsight sync: polling as ${sync.owner} into ${index.backend} (sources in ${sync.store.backend})${once ? ", once" : ""}`,
    );
    await sync.done;
    await sync.stop();
    if (once && failedPolls > 0) code = 1;
  } catch (e) {
    err(`threadsight sync: failed: ${(e as Error).message}`);
    code = 1;
    await sync?.stop().catch(() => undefined);
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    const closed = await closeAll(
      "threadsight sync",
      [
        ["the monitors store", monitors],
        ["the enricher", enricher],
        ["the embedder", embedder],
        ["the index", index],
      ],
      err,
    );
    if (!closed) code = 1;
  }
  return code;
}
