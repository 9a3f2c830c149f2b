/**
 * `threadsight reembed [--model NAME] [--batch N]`: moves the configured index (LanceDB under
 * THREADSIGHT_DATA_DIR, or Weaviate at WEAVIATE_URL) to another encoder in place
 * (reembed/reembed.ts): every post is embedded again into a shadow copy while searches keep
 * reading the old one, then the index is switched over in one step and the old copy dropped.
 * Progress goes to stderr, the summary to stdout. Exit codes: 0 done (or nothing to do), 1
 * failure or interruption (rerun it: it resumes after the last stored batch), 2 usage error.
 */
import { parseArgs } from "node:util";
import type { Config, LocalEncoderName } from "../config.js";
import { ConfigError, LOCAL_ENCODERS, loadConfig } from "../config.js";
import { createEmbedder } from "../enrich/create-embedder.js";
import type { Embedder } from "../enrich/embedder.js";
import type { ShadowCopy } from "../index/shadow-copy.js";
import { openShadowCopy } from "../index/shadow-copy.js";
import { checkpointScope } from "../ingest/checkpoint.js";
import type { IngestEnricher } from "../ingest/ingest-enricher.js";
import { createIngestEnricher } from "../ingest/ingest-enricher.js";
import { AlreadyReembeddedError, reembedIndex } from "../reembed/reembed.js";
import { ReembedCheckpointFile } from "../reembed/reembed-checkpoint.js";
import { topicModelPath } from "../topics/model-file.js";
import { closeAll } from "./close-all.js";

/** Posts per read/embed/write batch when --batch is not given. */
export const DEFAULT_REEMBED_BATCH = 256;
/** Largest --batch: the index's scan page limit. */
const MAX_BATCH = 1_000;

const HELP = `usage: threadsight reembed [--model NAME] [--batch N]

Re-embeds every stored post with another encoder, in place: the new vectors go into a shadow
copy (a second LanceDB table, or a second Weaviate collection behind the WEAVIATE_COLLECTION
alias) while searches keep using the old vectors; when every post is copied, posts ingested
meanwhile are caught up and the index switches to the new copy in one step, and the old copy
is dropped. Sentiment, lead fields and topics are copied, not computed again. Interrupted, it
resumes after the last stored batch when run again. Afterwards set EMBEDDINGS_MODEL to the new
encoder and restart the server.

  --model NAME  the encoder to move to: ${LOCAL_ENCODERS.join(" or ")} (default: EMBEDDINGS_MODEL)
  --batch N     posts per read/embed/write batch, 1..${MAX_BATCH} (default ${DEFAULT_REEMBED_BATCH})

Exit: 0 done or nothing to do, 1 failed or interrupted (rerun to resume), 2 usage.`;

/** Parsed command line. */
interface Args {
  model?: LocalEncoderName;
  batch: number;
}

function parse(argv: string[]): Args | "help" {
  const { values } = parseArgs({
    args: argv,
    options: { model: { type: "string" }, batch: { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: false,
    strict: true,
  });
  if (values.help === true) return "help";
  const args: Args = { batch: DEFAULT_REEMBED_BATCH };
  if (values.model !== undefined) {
    if (!(LOCAL_ENCODERS as readonly string[]).includes(values.model))
      throw new TypeError(`--model must be one of ${LOCAL_ENCODERS.join(", ")}, got "${values.model}"`);
    args.model = values.model as LocalEncoderName;
  }
  if (values.batch !== undefined) {
    const raw = values.batch;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_BATCH)
      throw new TypeError(`--batch must be a whole number between 1 and ${MAX_BATCH}, got "${raw}"`);
    args.batch = Number(raw);
  }
  return args;
}

/** The configuration the target encoder is started from: --model, else EMBEDDINGS_MODEL. */
function targetConfig(config: Config, model: LocalEncoderName | undefined): Config {
  if (model === undefined) return config;
  if (config.embeddingsUrl !== undefined)
    throw new TypeError("--model picks a bundled encoder; with EMBEDDINGS_URL set the target is that endpoint's model");
  return { ...config, localEncoder: model, embeddingsModel: model };
}

/** Entry point (registered in main.ts). */
export async function run(argv: string[]): Promise<number> {
  const err = (line: string): void => void process.stderr.write(line + "\n");
  let args: Args;
  try {
    const parsed = parse(argv);
    if (parsed === "help") {
      process.stdout.write(HELP + "\n");
      return 0;
    }
    args = parsed;
  } catch (e) {
    err(`threadsight reembed: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  let config: Config;
  try {
    config = targetConfig(loadConfig(), args.model);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof TypeError) {
      err(`threadsight reembed: ${e.message}`);
      return e instanceof TypeError ? 2 : 1;
    }
    throw e;
  }
  const controller = new AbortController();
  const onSignal = (name: string) => (): void => {
    err(`\nthreadsight reembed: ${name} received; stopping (rerun to resume after the last stored batch)`);
    controller.abort(new Error(`interrupted by ${name}`));
  };
  const onInt = onSignal("SIGINT");
  const onTerm = onSignal("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  const tty = process.stderr.isTTY === true;
  let embedder: Embedder | undefined;
  let enricher: IngestEnricher | undefined;
  let copies: ShadowCopy | undefined;
  const started = Date.now();
  let code: number;
  try {
    embedder = await createEmbedder(config, controller.signal);
    enricher = await createIngestEnricher(config.dataDir, embedder, { topics: false });
    copies = await openShadowCopy(config, { embeddingModel: embedder.model, dimensions: embedder.dimensions });
    const from = copies.stored;
    err(
      `threadsight reembed: ${copies.backend} ${copies.liveName} (${from?.embeddingModel ?? "empty"}) -> ${copies.shadowName} (${embedder.model}, ${embedder.dimensions} dimensions)`,
    );
    let lastLine = 0;
    let phaseStarted = started;
    let phase = "";
    const report = await reembedIndex(
      copies,
      embedder,
      new ReembedCheckpointFile(config.dataDir, checkpointScope(config)),
      {
        batch: args.batch,
        scope: checkpointScope(config),
        signal: controller.signal,
        topicModelFile: topicModelPath(config.dataDir),
        enricher,
        onWait: (holder) => {
          const now = Date.now();
          if (now - lastLine < 10_000) return;
          lastLine = now;
          err(`threadsight reembed: waiting to switch: ${holder}`);
        },
        onProgress: ({ phase: p, done, total }) => {
          const now = Date.now();
          if (p !== phase) {
            phase = p;
            phaseStarted = now;
          } else if (done < total && now - lastLine < (tty ? 200 : 5_000)) return;
          lastLine = now;
          const seconds = Math.max((now - phaseStarted) / 1000, 1e-3);
          const share = total === 0 ? 100 : Math.min(100, (100 * done) / total);
          const line = `reembed: ${p} ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} posts (${share.toFixed(1)}%), ${(done / seconds).toFixed(0)} posts/s`;
          process.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
        },
      },
    );
    if (tty) process.stderr.write("\n");
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `reembed summary: ${report.posts.toLocaleString("en-US")} posts now hold vectors of ${embedder.model} ` +
        `(${report.copied.toLocaleString("en-US")} embedded in this run${report.resumedAt > 0 ? `, resumed after ${report.resumedAt.toLocaleString("en-US")}` : ""}, ` +
        `${report.caughtUp.toLocaleString("en-US")} caught up from ingests meanwhile), in ${seconds.toFixed(1)} s` +
        (report.topics === undefined ? "" : `; topic model moved to the new vectors (${report.topics} topics)`) +
        `\n  next: set EMBEDDINGS_MODEL=${config.embeddingsModel} and restart threadsight serve\n`,
    );
    code = 0;
  } catch (e) {
    if (tty) process.stderr.write("\n");
    if (e instanceof AlreadyReembeddedError) {
      process.stdout.write(`reembed: nothing to do: ${e.message}\n`);
      code = 0;
    } else {
      err(`threadsight reembed: ${controller.signal.aborted ? "interrupted" : "failed"}: ${(e as Error).message}`);
      code = 1;
    }
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
  const closed = await closeAll(
    "threadsight reembed",
    [
      ["the enricher", enricher],
      ["the embedder", embedder],
      ["the index", copies],
    ],
    err,
  );
  return closed ? code : 1;
}
