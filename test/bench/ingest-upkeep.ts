/**
 * What keeping the embedded index's indexes current costs during a whole-corpora ingest, without
 * the encoder: the four corpora whole through the real pipeline (read, parse, enrich, upsert,
 * checkpoint) into a fresh LanceDB directory, with a stand-in embedder that returns the test
 * suites' hashed bag-of-words unit vector (test/index/synthetic.ts, 512-d) per text at once,
 * so the pipeline runs as fast as everything but the encoder allows. Prints wall time and CPU per thread name during the ingest ("main" this thread,
 * "tokio-rt-worker"/"lance-cpu" LanceDB, "node" V8 and libuv helpers) and during close (the final
 * optimize). VECTOR_INDEX=off keeps the vector index from being trained (brute-force vector
 * search), which isolates the vector index's share of LanceDB's work; INDEXING=deferred is a bulk
 * load (`--defer-indexing`, and `threadsight ingest`'s default while no server reads the
 * directory), live (the default here) keeps the indexes current; PER caps rows per corpus.
 * Run: [VECTOR_INDEX=off] [INDEXING=deferred] [PER=1000] node --import tsx test/bench/ingest-upkeep.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_BATCH_SIZE } from "../../src/cli/ingest.js";
import { loadConfig } from "../../src/config.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFiles } from "../../src/ingest/ingest-files.js";
import { embed } from "../index/synthetic.js";
import { CORPORA_FILES, corpusPath } from "./corpora.js";
import { indexingMode } from "./indexing-mode.js";
import { threadCpuDiff, threadCpuMs } from "./proc-cpu.js";

const DIMS = 512;
const embedder: Embedder = {
  model: "use-lite-512",
  dimensions: DIMS,
  embed: async (texts) => texts.map((t) => embed(t, DIMS)),
  close: async () => {},
};
const perCorpus = process.env.PER ? Number(process.env.PER) : undefined;
const indexing = indexingMode(process.env.INDEXING ?? "live");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-upkeep-"));
try {
  const index =
    process.env.VECTOR_INDEX === "off"
      ? new LanceDbIndex({ dir: LanceDbIndex.dirFor(dataDir), vectorIndexMinRows: Number.MAX_SAFE_INTEGER, indexing })
      : await openSearchIndex(loadConfig({ THREADSIGHT_DATA_DIR: dataDir }), { indexing });
  await index.open(embedder.model, embedder.dimensions);
  const enricher = await createIngestEnricher(dataDir, embedder);
  let posts = 0;
  const before = threadCpuMs();
  const t0 = performance.now();
  await ingestFiles(
    CORPORA_FILES.map(corpusPath),
    { batchSize: DEFAULT_BATCH_SIZE, ...(perCorpus ? { fileLimit: perCorpus } : {}) },
    { index, embedder, enricher, checkpoints: new CheckpointStore(dataDir), log: () => {} },
    (o) => {
      if ("error" in o) throw o.error;
      posts += o.result.postsThisRun;
    },
  );
  const t1 = performance.now();
  const ingested = threadCpuMs();
  await enricher.close();
  await index.close();
  const t2 = performance.now();
  console.log(
    `vector index ${process.env.VECTOR_INDEX === "off" ? "off" : "on"}, indexing ${indexing}; ${posts} posts`,
  );
  console.log(`ingest: ${(t1 - t0).toFixed(0)} ms wall; CPU ms ${threadCpuDiff(before, ingested)}`);
  console.log(
    `close (final optimize): ${(t2 - t1).toFixed(0)} ms wall; CPU ms ${threadCpuDiff(ingested, threadCpuMs())}`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
