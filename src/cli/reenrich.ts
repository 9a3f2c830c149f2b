/**
 * `threadsight reenrich [--batch-size N]`: runs sentiment, lead classification and topic
 * assignment again over every post already in the configured index (LanceDB under
 * THREADSIGHT_DATA_DIR, or Weaviate at WEAVIATE_URL — the settings `serve` and `ingest` use),
 * from the stored vectors, and writes the posts whose enrichment changed back through the index's
 * upsert (trend rollups stay right). Nothing is embedded again with the default embedder, so a
 * new classifier version costs minutes instead of a full re-ingest. With EMBEDDINGS_URL the
 * sentiment model still needs its own USE-lite vectors, as at ingest. Progress goes to stderr,
 * the summary to stdout. Exit codes: 0 done, 3 done but the index refused some posts, 1 failure
 * or interruption (rerun it: it is idempotent), 2 usage error.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Config } from "../config.js";
import { ConfigError, loadConfig } from "../config.js";
import { createEmbedder } from "../enrich/create-embedder.js";
import type { Embedder } from "../enrich/embedder.js";
import { MINILM_DIMENSIONS } from "../enrich/minilm/bert-graph.js";
import { MINILM_MODEL_ID } from "../enrich/minilm/minilm-files.js";
import { USE_MODEL_ID } from "../enrich/use-embedder.js";
import { openSearchIndex } from "../index/open-index.js";
import { openTrendStore } from "../index/open-trend-store.js";
import type { SearchIndex } from "../index/search-index.js";
import type { IngestEnricher } from "../ingest/ingest-enricher.js";
import { createIngestEnricher } from "../ingest/ingest-enricher.js";
import { reenrichAll } from "../ingest/reenrich.js";
import { topicModelPath } from "../topics/model-file.js";
import type { TrendStore } from "../topics/trend-store.js";
import { closeAll } from "./close-all.js";

/** Posts per read/enrich/write batch when --batch-size is not given. */
export const DEFAULT_REENRICH_BATCH = 1000;
/** Dimensions of the bundled USE-lite vectors. */
const USE_DIMENSIONS = 512;

const HELP = `usage: threadsight reenrich [--batch-size N]

Re-runs sentiment, lead classification and topic assignment over every stored post, from its
stored vector (no re-embedding), and writes back the posts whose enrichment changed. Uses the
index that serve and ingest use (THREADSIGHT_DATA_DIR, or WEAVIATE_URL). Without a topic model
(threadsight topics rebuild) posts keep their stored topic.

  --batch-size N  posts per read/enrich/write batch (default ${DEFAULT_REENRICH_BATCH})

Exit: 0 done, 3 done but the index refused some posts, 1 failed (rerun: it is idempotent), 2 usage.`;

/** The model and dimensions of the vectors the index holds, starting an embedder only when remote. */
async function vectorModel(
  config: Config,
  signal: AbortSignal,
): Promise<{ model: string; dimensions: number; embedder?: Embedder }> {
  if (config.embeddingsUrl === undefined) {
    return config.localEncoder === "all-minilm-l6-v2"
      ? { model: MINILM_MODEL_ID, dimensions: MINILM_DIMENSIONS }
      : { model: USE_MODEL_ID, dimensions: USE_DIMENSIONS };
  }
  // The remote embedder tells its dimensions after a probe; it embeds nothing else here.
  const embedder = await createEmbedder(config, signal);
  return { model: embedder.model, dimensions: embedder.dimensions, embedder };
}

function counts(record: Record<string, number>, label: (key: string) => string): string {
  return Object.entries(record)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${label(k)} ${n.toLocaleString("en-US")}`)
    .join(", ");
}

/** Entry point (registered in main.ts). */
export async function run(argv: string[]): Promise<number> {
  const err = (line: string): void => void process.stderr.write(line + "\n");
  let batchSize = DEFAULT_REENRICH_BATCH;
  try {
    const parsed = parseArgs({
      args: argv,
      options: { "batch-size": { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: false,
      strict: true,
    });
    if (parsed.values.help === true) {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    const raw = parsed.values["batch-size"];
    if (raw !== undefined) {
      if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 10_000)
        throw new TypeError(`--batch-size must be a whole number between 1 and 10000, got "${raw}"`);
      batchSize = Number(raw);
    }
  } catch (e) {
    err(`threadsight reenrich: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err(`threadsight reenrich: ${e.message}`);
      return 1;
    }
    throw e;
  }

  const controller = new AbortController();
  const onSignal = (name: string) => (): void => {
    err(
      `\nthreadsight reenrich: ${name} received; stopping after the current batch (rerun to finish: written batches are done)`,
    );
    controller.abort(new Error(`interrupted by ${name}`));
  };
  const onInt = onSignal("SIGINT");
  const onTerm = onSignal("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);

  const tty = process.stderr.isTTY === true;
  let index: SearchIndex | undefined;
  let store: TrendStore | undefined;
  let enricher: IngestEnricher | undefined;
  let embedder: Embedder | undefined;
  const started = Date.now();
  let code: number;
  let closed = true;
  try {
    const vectors = await vectorModel(config, controller.signal);
    embedder = vectors.embedder;
    index = await openSearchIndex(config);
    const info = await index.open(vectors.model, vectors.dimensions);
    store = await openTrendStore(config);
    enricher = await createIngestEnricher(config.dataDir, vectors);
    const keepTopics = !existsSync(topicModelPath(config.dataDir));
    err(
      `threadsight reenrich: ${info.count.toLocaleString("en-US")} posts in ${index.backend} (vectors ${vectors.model})${keepTopics ? "; no topic model, topics kept" : ""}`,
    );
    let lastLine = 0;
    const report = await reenrichAll(index, store, enricher, {
      batchSize,
      spillDir: config.dataDir,
      dimensions: vectors.dimensions,
      keepTopics,
      signal: controller.signal,
      onProgress: (done, total) => {
        const now = Date.now();
        if (done < total && now - lastLine < (tty ? 200 : 10_000)) return;
        lastLine = now;
        const seconds = Math.max((now - started) / 1000, 1e-3);
        const line = `reenrich: ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} posts (${total === 0 ? 100 : ((100 * done) / total).toFixed(1)}%), ${(done / seconds).toFixed(0)} posts/s`;
        process.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
      },
    });
    if (tty) process.stderr.write("\n");
    for (const f of report.failed.slice(0, 20)) err(`threadsight reenrich: index rejected ${f.id}: ${f.reason}`);
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `reenrich summary: ${report.enriched.toLocaleString("en-US")} posts re-enriched, ${report.changed.toLocaleString("en-US")} changed and written, ` +
        `${report.failed.length} refused, in ${seconds.toFixed(1)} s\n` +
        `  lead_type: ${counts(report.leadTypes, (k) => k || "(none)")}\n` +
        `  sentiment: ${counts(report.sentiments, (k) => k)}\n`,
    );
    code = report.failed.length > 0 ? 3 : 0;
  } catch (e) {
    if (tty) process.stderr.write("\n");
    err(`threadsight reenrich: ${controller.signal.aborted ? "interrupted" : "failed"}: ${(e as Error).message}`);
    code = 1;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    closed = await closeAll(
      "threadsight reenrich",
      [
        ["the enricher", enricher],
        ["the embedder", embedder],
        ["the trend store", store],
        ["the index", index],
      ],
      err,
    );
  }
  return closed ? code : 1;
}
