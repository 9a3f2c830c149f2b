/**
 * `threadsight ingest <path...>`: streams dump files into the configured index (LanceDB under
 * THREADSIGHT_DATA_DIR, or Weaviate at WEAVIATE_URL — the same settings `serve` uses, so a running
 * server sees new posts once the index makes them visible). A directory argument means the input
 * files directly inside it. Progress goes to stderr; the final summary to stdout. A run that ends
 * well then builds or refreshes the topic model when due (topics/auto-build.ts).
 * Exit codes: 0 all ingested, 3 finished but some records were skipped or refused, 1 failure or
 * interruption (rerun the same command to resume), 2 usage error.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { createEmbedder } from "../enrich/create-embedder.js";
import type { Embedder } from "../enrich/embedder.js";
import type { IndexingMode } from "../index/open-index.js";
import { indexingPlan, openSearchIndex } from "../index/open-index.js";
import { openTrendStore } from "../index/open-trend-store.js";
import type { SearchIndex } from "../index/search-index.js";
import { CheckpointStore, checkpointScope } from "../ingest/checkpoint.js";
import type { Format } from "../ingest/formats.js";
import { FORMAT_HELP, FORMATS, isFormat } from "../ingest/formats.js";
import type { IngestEnricher } from "../ingest/ingest-enricher.js";
import { createIngestEnricher } from "../ingest/ingest-enricher.js";
import { ingestFiles } from "../ingest/ingest-files.js";
import { addStats, emptyStats, formatStats, skippedTotal } from "../ingest/ingest-stats.js";
import { IngestFileError } from "../ingest/pipeline.js";
import { createProgress } from "../ingest/progress.js";
import type { FieldMap } from "../ingest/readers/generic-jsonl.js";
import { parseFieldMap } from "../ingest/readers/generic-jsonl.js";
import { monitorPercolator } from "../monitors/monitor-percolator.js";
import type { MonitorStore } from "../monitors/monitor-store.js";
import { openMonitors } from "../monitors/open-monitors.js";
import { ensureTopicModel } from "../topics/auto-build.js";
import { topicModelPath } from "../topics/model-file.js";
import { closeAll } from "./close-all.js";

/**
 * Posts per batch when --batch-size is not given. Each batch is one write, and on the embedded
 * index a write has a fixed cost (its id look-up, a new data file and a commit) that comes out of
 * the encoder's two cores: over the whole corpora (test/bench/ingest-cpu-split.ts), batches of
 * 1,024 instead of 256 with the 20% optimize share (lancedb/maintenance.ts) cut LanceDB's CPU up to
 * the last write from 74 to 50 s, and the run with its final optimize from ~395 to ~388 s. A
 * batch is written within a few seconds at the encoder's pace, which bounds how long a read post
 * waits to become searchable.
 */
export const DEFAULT_BATCH_SIZE = 1024;

/** File name endings a directory argument picks up. */
const INPUT_FILE = /\.(ndjson|jsonl|json|csv)(\.(zst|gz))?$/i;

const HELP = `usage: threadsight ingest <path...> [--format F] [--map FIELDS] [--source NAME] [--batch-size N] [--limit N]
                          [--defer-indexing | --live-indexing]

  <path>        input files; a directory means the *.ndjson, *.jsonl, *.json, *.csv files in it
                (optionally .zst or .gz compressed)
  --format F    force the format instead of detecting it from the name and first bytes:
${FORMATS.map((f) => `                  ${f.padEnd(20)} ${FORMAT_HELP[f]}`).join("\n")}
  --map FIELDS  field names for generic JSON Lines (implies --format jsonl), e.g.
                id=post_id,title=headline,content=body,created=ts
                mappable: id, title, content, subforum, author, upvotes, comments, created, url
  --source NAME source recorded for generic jsonl posts (default "jsonl"); ids are NAME:<id>
  --batch-size N posts per embed/write batch (default ${DEFAULT_BATCH_SIZE})
  --limit N     stop after N posts this run; the next run continues from there
  --defer-indexing
                embedded index only: bring its indexes up to date once, when the ingest ends,
                instead of while it runs (far less CPU taken from the encoder, but until the
                end new posts are found by slow scans, keyword searches most of all)
  --live-indexing
                embedded index only: keep its indexes up to date while the ingest runs
  By default the embedded index defers while no \`threadsight serve\` reads the same
  THREADSIGHT_DATA_DIR and keeps its indexes up to date from the moment one does.

An interrupted ingest resumes where it stopped when run again on the same unchanged file
(checkpoints in THREADSIGHT_DATA_DIR/ingest-checkpoints). Re-ingesting a finished file updates
its posts; ids never duplicate. When the index ends with no topic model and at least 200 posts,
the ingest builds one; it refreshes the model once the index has grown by half since its build.
Exit: 0 done, 3 done with skipped records, 1 failed, 2 usage.`;

/** A command-line mistake: exit 2. */
class UsageError extends Error {}

interface Args {
  paths: string[];
  format: Format | undefined;
  map: FieldMap | undefined;
  source: string | undefined;
  batchSize: number;
  limit: number | undefined;
  indexing: IndexingMode;
}

function positiveInt(
  name: string,
  raw: string | undefined,
  fallback: number | undefined,
  max: number,
): number | undefined {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    throw new UsageError(`${name} must be a whole number between 1 and ${max}, got "${raw}"`);
  return Number(raw);
}

function parse(argv: string[]): Args | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: "string" },
        map: { type: "string" },
        source: { type: "string" },
        "batch-size": { type: "string" },
        limit: { type: "string" },
        "defer-indexing": { type: "boolean" },
        "live-indexing": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help === true) return "help";
  if (parsed.positionals.length === 0) throw new UsageError("give at least one file or directory to ingest");
  if (v.format !== undefined && !isFormat(v.format))
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, got "${v.format}"`);
  let map: FieldMap | undefined;
  try {
    map = v.map === undefined ? undefined : parseFieldMap(v.map);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (map !== undefined && v.format !== undefined && v.format !== "jsonl")
    throw new UsageError(`--map only applies to --format jsonl, not ${v.format}`);
  if (v["defer-indexing"] === true && v["live-indexing"] === true)
    throw new UsageError("give --defer-indexing or --live-indexing, not both");
  if (v.source !== undefined && !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(v.source))
    throw new UsageError(`--source must be 1-32 lowercase letters, digits, - or _, got "${v.source}"`);
  return {
    paths: parsed.positionals,
    format: v.format as Format | undefined,
    map,
    source: v.source,
    batchSize: positiveInt("--batch-size", v["batch-size"], DEFAULT_BATCH_SIZE, 10_000)!,
    limit: positiveInt("--limit", v.limit, undefined, Number.MAX_SAFE_INTEGER),
    indexing: v["defer-indexing"] === true ? "deferred" : v["live-indexing"] === true ? "live" : "auto",
  };
}

/** Files named by the arguments: files as given, directories expanded (sorted, not recursive). */
async function expand(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    let info;
    try {
      info = await stat(p);
    } catch {
      throw new UsageError(`${p}: no such file or directory`);
    }
    if (!info.isDirectory()) {
      files.push(path.resolve(p));
      continue;
    }
    const names = (await readdir(p)).filter((n) => INPUT_FILE.test(n)).sort();
    if (names.length === 0)
      throw new UsageError(`${p}: no input files (*.ndjson, *.jsonl, *.json, *.csv) in this directory`);
    files.push(...names.map((n) => path.resolve(p, n)));
  }
  return files;
}

/** Entry point (registered in main.ts). */
export async function run(argv: string[]): Promise<number> {
  const err = (line: string): void => void process.stderr.write(line + "\n");
  let args: Args;
  let files: string[];
  try {
    const parsed = parse(argv);
    if (parsed === "help") {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    args = parsed;
    files = await expand(args.paths);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`threadsight ingest: ${e.message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err(`threadsight ingest: ${e.message}`);
      return 1;
    }
    throw e;
  }
  if (args.indexing !== "auto" && config.weaviateUrl) {
    err(
      `threadsight ingest: --${args.indexing === "deferred" ? "defer" : "live"}-indexing applies to the embedded index; Weaviate (WEAVIATE_URL) indexes each post as it is written`,
    );
    return 2;
  }

  const controller = new AbortController();
  const onSignal = (name: string) => (): void => {
    err(
      `\nthreadsight ingest: ${name} received; stopping (written batches are checkpointed: rerun the same command to resume)`,
    );
    controller.abort(new Error(`interrupted by ${name}`));
  };
  const onInt = onSignal("SIGINT");
  const onTerm = onSignal("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);

  let embedder: Embedder | undefined;
  let index: SearchIndex | undefined;
  let enricher: IngestEnricher | undefined;
  let monitors: MonitorStore | undefined;
  const progress = createProgress({ stream: process.stderr });
  const total = emptyStats();
  let failed = false;
  const started = Date.now();
  let postsThisRun = 0;
  /** Posts the index holds once the writes are done; undefined when the run failed. */
  let postsInIndex: number | undefined;
  try {
    embedder = await createEmbedder(config, controller.signal);
    index = await openSearchIndex(config, { indexing: args.indexing });
    const info = await index.open(embedder.model, embedder.dimensions);
    err(
      `threadsight ingest: ${files.length} file(s) into ${index.backend} (${info.count.toLocaleString("en-US")} posts, model ${embedder.model}; ${indexingPlan(config, args.indexing)})`,
    );
    enricher = await createIngestEnricher(config.dataDir, embedder);
    const checkpoints = new CheckpointStore(config.dataDir, checkpointScope(config));
    // Every written post is matched against the active monitors; their events go to the outbox
    // the server's delivery workers read.
    monitors = (await openMonitors({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, delivers: false }))
      .store;
    const upserted = monitorPercolator({
      store: monitors,
      embedder,
      alphas: { hybridAlpha: config.hybridAlpha, shortQueryAlpha: config.shortQueryAlpha },
    });
    const log = (line: string): void => {
      progress.done();
      err(line);
    };
    await ingestFiles(
      files,
      {
        batchSize: args.batchSize,
        signal: controller.signal,
        ...(args.format === undefined ? {} : { format: args.format }),
        ...(args.map === undefined ? {} : { map: args.map }),
        ...(args.source === undefined ? {} : { source: args.source }),
        ...(args.limit === undefined ? {} : { limit: args.limit }),
      },
      { index, embedder, enricher, checkpoints, log, progress, upserted },
      (outcome) => {
        progress.done();
        if ("result" in outcome) {
          const { result } = outcome;
          postsThisRun += result.postsThisRun;
          addStats(total, result.stats);
          const note = result.complete ? "" : " (stopped by --limit; rerun to continue)";
          err(`${result.path} [${result.format}]: ${formatStats(result.stats)}${note}`);
          return;
        }
        const e = outcome.error;
        if (e instanceof IngestFileError) {
          postsThisRun += e.partial.postsThisRun;
          addStats(total, e.partial.stats);
        }
        // Interrupted: ingestFiles throws the error, reported once below.
        if (controller.signal.aborted) return;
        failed = true;
        err(`threadsight ingest: ${outcome.file}: ${(e as Error).message}`);
      },
    );
    if (!failed) postsInIndex = await index.count(controller.signal);
  } catch (e) {
    progress.done();
    err(`threadsight ingest: ${controller.signal.aborted ? "interrupted" : "failed"}: ${(e as Error).message}`);
    failed = true;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    // The embedded index's remaining work happens in the close below, silent otherwise: minutes
    // on a large table after a deferred run.
    if (index?.backend === "lancedb")
      err(
        "threadsight ingest: bringing the indexes up to date (folding in the new posts, training the vector index when due)",
      );
    const closed = await closeAll(
      "threadsight ingest",
      [
        ["the monitors store", monitors],
        ["the enricher", enricher],
        ["the embedder", embedder],
        ["the index (stored posts are kept; their index refresh runs again at the next write or start)", index],
      ],
      err,
    );
    if (!closed) failed = true;
  }
  // After the index is closed: the rebuild opens the store itself (one writer per directory).
  if (!failed && postsInIndex !== undefined && !controller.signal.aborted) {
    try {
      const outcome = await ensureTopicModel({
        file: topicModelPath(config.dataDir),
        posts: postsInIndex,
        openStore: () => openTrendStore(config),
        onProgress: (m) => err(`threadsight ingest: topics: ${m}`),
        signal: controller.signal,
      });
      err(`threadsight ingest: ${outcome.message}`);
    } catch (e) {
      err(
        `threadsight ingest: the posts are stored, but building the topic model failed: ${(e as Error).message}; run \`threadsight topics rebuild\``,
      );
      failed = true;
    }
  }
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `ingest summary: ${formatStats(total)}; ${postsThisRun.toLocaleString("en-US")} posts this run in ${seconds.toFixed(1)} s (${(postsThisRun / Math.max(seconds, 1e-3)).toFixed(1)} posts/s)\n`,
  );
  if (failed) return 1;
  return skippedTotal(total) > 0 || total.failed > 0 ? 3 : 0;
}
