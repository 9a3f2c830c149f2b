/**
 * Ingest benchmark. Two measurements:
 *
 * 1. Ratio: the embedder's raw throughput against the pipeline's end-to-end throughput on the
 *    same posts. A slice of each corpus goes through `ingestFiles` (read, parse, embed, enrich
 *    with the enricher `threadsight ingest` uses — sentiment, lead fields, topic — upsert through
 *    the rollup-maintaining index, checkpoint) into a fresh target; the exact embed calls the pipeline made are then
 *    replayed straight into the embedder (both workers, all calls queued at once). Rounds
 *    alternate raw and pipeline so that load from other processes hits both alike.
 * 2. The whole corpora, each file once, into the kept index (resumable: the pipeline's own
 *    checkpoints, plus a marker per finished file so a later run reuses the index instead of
 *    ingesting again), then per-corpus counts in the index against independently counted rows.
 *    `stop` (a deadline or a signal) ends the ingest after the current batch; the corpus in
 *    progress is then reported as partial, with the counts its checkpoint holds.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_BATCH_SIZE } from "../../src/cli/ingest.js";
import type { LocalEncoderName } from "../../src/config.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { startMiniLmEmbedder } from "../../src/enrich/minilm/minilm-embedder.js";
import { defaultMiniLmDirectory } from "../../src/enrich/minilm/minilm-files.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { IndexingMode } from "../../src/index/open-index.js";
import { connectWeaviate } from "../../src/index/weaviate/connect.js";
import { CheckpointStore, inputIdentity } from "../../src/ingest/checkpoint.js";
import type { IngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFiles } from "../../src/ingest/ingest-files.js";
import type { IngestStats } from "../../src/ingest/ingest-stats.js";
import { emptyStats, skippedTotal } from "../../src/ingest/ingest-stats.js";
import { ingestFile } from "../../src/ingest/pipeline.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import { CORPORA_FILES, corpusPath, lanceCount, weaviateCount } from "./corpora.js";
import { BENCH_DIR } from "./results-store.js";
import { median, msSince } from "./stats.js";
import type { StoredVectorStats } from "./stored-vectors.js";
import { storedVectorEmbedder } from "./stored-vectors.js";

/** Result of the raw-vs-pipeline comparison. */
export interface RatioResult {
  backend: string;
  posts: number;
  rounds: number;
  rawPerS: number[];
  pipelinePerS: number[];
  medianRaw: number;
  medianPipeline: number;
  /** Median over rounds of pipeline/raw in the same round. */
  medianRatio: number;
  /** How the pipeline opened the index; absent in results stored before the ingest default deferred (they ran "live"). */
  indexing?: IndexingMode;
}

/** One corpus of the full ingest. */
export interface CorpusIngest {
  name: string;
  file: string;
  sourceRows: number;
  stats: IngestStats;
  /** Posts read by this run and the seconds it took (0 when reused from an earlier run). */
  postsThisRun: number;
  seconds: number;
  reused: boolean;
  resumedFrom: number;
  indexCount: number;
}

/** The full ingest into one backend. */
export interface FullIngest {
  backend: string;
  limitPerCorpus: number | undefined;
  corpora: CorpusIngest[];
  indexTotal: number;
  /** Set when the run's vectors came from the kept embedded index (INGEST_VECTORS_FROM). */
  vectors?: StoredVectorStats;
}

const quietLog = (): void => {};

/** How the pipeline opens its index: as `threadsight ingest` does by default. */
const RATIO_INDEXING: IndexingMode = "auto";

/** An embedder that remembers the texts of every call, to replay them against the raw embedder. */
function recording(inner: Embedder, calls: string[][]): Embedder {
  return {
    model: inner.model,
    dimensions: inner.dimensions,
    embed: (texts, signal) => {
      calls.push([...texts]);
      return inner.embed(texts, signal);
    },
    close: async () => {},
  };
}

async function pipelineOnce(
  make: () => Promise<{ target: BackendTarget; cleanup: () => Promise<void> }>,
  embedder: Embedder,
  perCorpus: number,
): Promise<{ posts: number; ms: number }> {
  const { target, cleanup } = await make();
  // As `threadsight ingest` opens it by default: with no server reading the scratch directory,
  // the embedded index leaves its upkeep to the close (lancedb/maintenance.ts).
  const index = await indexFor(target, { indexing: RATIO_INDEXING });
  try {
    await index.open(embedder.model, embedder.dimensions);
    const checkpoints = new CheckpointStore(target.dataDir);
    // Built before the clock starts, as `threadsight ingest` builds it once before its files.
    const enricher = await createIngestEnricher(target.dataDir, embedder);
    try {
      let posts = 0;
      const t0 = process.hrtime.bigint();
      // The corpora as `threadsight ingest a b c d` takes them: one pipeline over the files.
      await ingestFiles(
        CORPORA_FILES.map(corpusPath),
        { batchSize: DEFAULT_BATCH_SIZE, fileLimit: perCorpus },
        { index, embedder, enricher, checkpoints, log: quietLog },
        (outcome) => {
          if ("error" in outcome) throw outcome.error;
          posts += outcome.result.postsThisRun;
        },
      );
      // Timed to the index's close, as `threadsight ingest` exits only after it: a writer then
      // waits for its background upkeep and folds the rows still unindexed into the indexes.
      await index.close();
      return { posts, ms: msSince(t0) };
    } finally {
      await enricher.close();
    }
  } finally {
    await index.close();
    await cleanup();
  }
}

/** Scratch targets for the ratio rounds: a temp dir, or a throw-away Weaviate collection. */
export function scratchMaker(
  base: BackendTarget,
): () => Promise<{ target: BackendTarget; cleanup: () => Promise<void> }> {
  let n = 0;
  return async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-bench-ratio-"));
    if (base.backend === "lancedb") {
      return {
        target: { backend: "lancedb", dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } },
        cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    }
    const collection = `BenchRatio${process.pid}R${++n}`;
    const target: BackendTarget = {
      backend: "weaviate",
      dataDir,
      collection,
      env: { ...base.env, THREADSIGHT_DATA_DIR: dataDir, WEAVIATE_COLLECTION: collection },
    };
    return {
      target,
      cleanup: async () => {
        rmSync(dataDir, { recursive: true, force: true });
        const client = await connectWeaviate({ httpUrl: base.env.WEAVIATE_URL!, grpcUrl: base.env.WEAVIATE_GRPC_URL! });
        await client.collections.delete(collection).catch(() => undefined);
        await client.close();
      },
    };
  };
}

/** Measures raw embedder vs pipeline throughput on `posts` posts (a quarter from each corpus). */
export async function measureRatio(
  base: BackendTarget,
  posts: number,
  rounds: number,
  log: (s: string) => void,
  encoder: LocalEncoderName = "use-lite",
): Promise<RatioResult> {
  // With MiniLM the enricher starts its own USE-lite encoder for the heads (ingest-enricher.ts):
  // the ratio then shows what that costs against MiniLM's raw rate.
  const embedder =
    encoder === "use-lite" ? await startUseEmbedder(2) : await startMiniLmEmbedder(2, defaultMiniLmDirectory());
  try {
    const perCorpus = Math.max(1, Math.floor(posts / CORPORA_FILES.length));
    const make = scratchMaker(base);
    const calls: string[][] = [];
    // Warm-up round: loads the model's kernels and records the embed calls the pipeline makes.
    await pipelineOnce(make, recording(embedder, calls), perCorpus);
    const texts = calls.reduce((s, c) => s + c.length, 0);
    const rawPerS: number[] = [];
    const pipelinePerS: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      await Promise.all(calls.map((c) => embedder.embed(c)));
      const raw = texts / (msSince(t0) / 1000);
      const p = await pipelineOnce(make, embedder, perCorpus);
      const pipe = p.posts / (p.ms / 1000);
      rawPerS.push(raw);
      pipelinePerS.push(pipe);
      ratios.push(pipe / raw);
      log(
        `ratio ${base.backend} round ${r + 1}/${rounds}: raw ${raw.toFixed(1)} texts/s, pipeline ${pipe.toFixed(1)} posts/s (${((100 * pipe) / raw).toFixed(1)}%)`,
      );
    }
    return {
      backend: base.backend,
      posts: texts,
      rounds,
      rawPerS,
      pipelinePerS,
      medianRaw: median(rawPerS),
      medianPipeline: median(pipelinePerS),
      medianRatio: median(ratios),
      indexing: RATIO_INDEXING,
    };
  } finally {
    await embedder.close();
  }
}

/** A corpus the stop cut short (or never started): its counts so far come from its checkpoint. */
async function partial(
  c: (typeof CORPORA_FILES)[number],
  checkpoints: CheckpointStore,
  postsThisRun: number,
  seconds: number,
): Promise<CorpusIngest> {
  const cp = await checkpoints.load(await inputIdentity(corpusPath(c)));
  return {
    name: c.name,
    file: c.file,
    sourceRows: -1,
    stats: cp?.stats ?? emptyStats(),
    postsThisRun,
    seconds,
    reused: false,
    resumedFrom: 0,
    indexCount: -1,
  };
}

async function countIn(target: BackendTarget, c: (typeof CORPORA_FILES)[number]): Promise<number> {
  if (target.backend === "lancedb") return lanceCount(target.dataDir, c);
  const client = await connectWeaviate({ httpUrl: target.env.WEAVIATE_URL!, grpcUrl: target.env.WEAVIATE_GRPC_URL! });
  try {
    return await weaviateCount(client, target.collection!, c);
  } finally {
    await client.close();
  }
}

/**
 * Ingests every corpus into the kept target (or reuses what an earlier run finished), then
 * counts. `limit` caps posts per corpus for smoke runs (the target's tag must differ).
 */
export async function ingestAll(
  target: BackendTarget,
  limit: number | undefined,
  log: (s: string) => void,
  stop?: AbortSignal,
): Promise<FullIngest> {
  mkdirSync(target.dataDir, { recursive: true });
  const markerDir = path.join(target.dataDir, "bench-done");
  mkdirSync(markerDir, { recursive: true });
  // INGEST_VECTORS_FROM=<bench data dir, e.g. lancedb-full>: answer embed calls from that index's
  // stored vectors where the text matches (stored-vectors.ts), for a second backend on a busy machine.
  const vectorsFrom = process.env.INGEST_VECTORS_FROM;
  if (vectorsFrom !== undefined && !/^[A-Za-z0-9_-]+$/.test(vectorsFrom))
    throw new Error(`INGEST_VECTORS_FROM must name a directory in ${BENCH_DIR}, got "${vectorsFrom}"`);
  const use = await startUseEmbedder(2);
  const stored =
    vectorsFrom === undefined
      ? undefined
      : await storedVectorEmbedder(path.join(BENCH_DIR, vectorsFrom), use, log).catch(async (err: unknown) => {
          await use.close();
          throw err;
        });
  if (stored)
    log(
      `ingest ${target.backend}: vectors from ${vectorsFrom} (${stored.stats().sourceRows} texts) where the text matches, USE-lite otherwise`,
    );
  const embedder = stored ?? use;
  const index = await indexFor(target);
  const out: CorpusIngest[] = [];
  let enricher: IngestEnricher | undefined;
  try {
    const info = await index.open(embedder.model, embedder.dimensions);
    enricher = await createIngestEnricher(target.dataDir, embedder);
    log(`ingest ${target.backend}: index holds ${info.count} posts before this run`);
    const checkpoints = new CheckpointStore(target.dataDir);
    for (const c of CORPORA_FILES) {
      const marker = path.join(markerDir, `${c.name}.json`);
      if (existsSync(marker)) {
        const done = JSON.parse(readFileSync(marker, "utf8")) as CorpusIngest;
        log(
          `ingest ${target.backend} ${c.name}: finished by an earlier run (${done.postsThisRun} posts in ${done.seconds.toFixed(0)} s); reusing`,
        );
        out.push({ ...done, reused: true });
        continue;
      }
      if (stop?.aborted) {
        out.push(await partial(c, checkpoints, 0, 0));
        continue;
      }
      const t0 = process.hrtime.bigint();
      let lastLog = Date.now();
      let postsNow = 0;
      const r = await ingestFile(
        corpusPath(c),
        {
          batchSize: DEFAULT_BATCH_SIZE,
          ...(limit === undefined ? {} : { limit }),
          ...(stop === undefined ? {} : { signal: stop }),
        },
        {
          index,
          embedder,
          enricher,
          checkpoints,
          log: quietLog,
          progress: {
            update: (s) => {
              postsNow = s.posts;
              if (Date.now() - lastLog < 30_000) return;
              lastLog = Date.now();
              log(
                `ingest ${target.backend} ${c.name}: ${s.posts} posts, ${(s.posts / (msSince(t0) / 1000)).toFixed(1)} posts/s`,
              );
            },
            done: () => {},
          },
        },
      ).catch(async (err: unknown) => {
        if (!stop?.aborted) throw err;
        return undefined;
      });
      const seconds = msSince(t0) / 1000;
      if (r === undefined) {
        const rec = await partial(c, checkpoints, postsNow, seconds);
        log(
          `ingest ${target.backend} ${c.name}: stopped after ${postsNow} posts this run (${rec.stats.read} records so far); rerun to resume`,
        );
        out.push(rec);
        continue;
      }
      const rec: CorpusIngest = {
        name: c.name,
        file: c.file,
        sourceRows: -1,
        stats: r.stats,
        postsThisRun: r.postsThisRun,
        seconds,
        reused: false,
        resumedFrom: r.resumedFrom,
        indexCount: -1,
      };
      writeFileSync(marker, JSON.stringify(rec));
      log(
        `ingest ${target.backend} ${c.name}: ${r.postsThisRun} posts in ${seconds.toFixed(1)} s (${(r.postsThisRun / seconds).toFixed(1)} posts/s), skipped ${skippedTotal(r.stats)}`,
      );
      out.push(rec);
    }
  } finally {
    await enricher?.close();
    await index.close();
    await embedder.close();
  }
  for (const rec of out) {
    const c = CORPORA_FILES.find((x) => x.name === rec.name)!;
    rec.sourceRows = await c.rowCount();
    rec.indexCount = await countIn(target, c);
  }
  return {
    backend: target.backend,
    limitPerCorpus: limit,
    corpora: out,
    indexTotal: out.reduce((s, r) => s + r.indexCount, 0),
    ...(stored ? { vectors: stored.stats() } : {}),
  };
}
