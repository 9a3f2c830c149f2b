/**
 * Where an ingest run's CPU goes, by thread, until the index is closed (its final optimize, as
 * the ratio part times it), next to the raw embedder on the same embed calls (the ratio part's
 * setup: 250 posts of each corpus into a fresh embedded index, 2 embedder workers). Per round:
 * when the first embed call started, when the last finished, when the run ended and each
 * upsert's span (ms from the start), then CPU per thread name from
 * /proc/self/task (10 ms ticks: "main" is this thread, "node" the embedder workers,
 * "tokio-rt-worker" and "lance-cpu" LanceDB). BACKEND=weaviate writes to a scratch collection of
 * the benchmark's Weaviate server instead and adds the server process's CPU ("weaviate-server");
 * PER sets the posts per corpus (250; 60000 takes every file whole), BATCH the posts per batch
 * (the CLI's default), NORAW=1 skips the raw replay, INDEXING the embedded index's mode: auto (the
 * CLI's default: with no server reading the scratch directory, the same as deferred), live or deferred.
 * Run: ROUNDS=4 [BACKEND=weaviate] [PER=1000] [BATCH=256] [NORAW=1] [INDEXING=live] node --import tsx test/bench/ingest-cpu-split.ts
 */

import { DEFAULT_BATCH_SIZE } from "../../src/cli/ingest.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFiles } from "../../src/ingest/ingest-files.js";
import { indexFor, targetFor } from "./backends.js";
import { CORPORA_FILES, corpusPath } from "./corpora.js";
import { indexingMode } from "./indexing-mode.js";
import { scratchMaker } from "./ingest.js";
import { procCpuMs, threadCpuDiff, threadCpuMs } from "./proc-cpu.js";
import { startBenchWeaviate } from "./weaviate-server.js";

const per = Number(process.env.PER ?? 250);
const weaviate = process.env.BACKEND === "weaviate" ? await startBenchWeaviate() : undefined;
const scratch = scratchMaker(targetFor(weaviate ? "weaviate" : "lancedb", "full", weaviate));
const serverCpuMs = (): number => (weaviate?.pid === undefined ? 0 : procCpuMs(weaviate.pid));
const embedder = await startUseEmbedder(2);
for (let round = 0; round < Number(process.env.ROUNDS ?? 4); round++) {
  const { target, cleanup } = await scratch();
  const dataDir = target.dataDir;
  const index = await indexFor(target, { indexing: indexingMode(process.env.INDEXING ?? "auto") });
  await index.open(embedder.model, embedder.dimensions);
  const enricher = await createIngestEnricher(dataDir, embedder);
  const ev: string[] = [];
  let t0 = 0n;
  const at = () => (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0);
  let firstEmbed = "",
    lastEmbedDone = "";
  const calls: string[][] = [];
  const wrapped: Embedder = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    close: async () => {},
    embed: async (t, s) => {
      calls.push([...t]);
      if (!firstEmbed) firstEmbed = at();
      const v = await embedder.embed(t, s);
      lastEmbedDone = at();
      return v;
    },
  };
  const up = index.upsert.bind(index);
  index.upsert = async (p, s) => {
    const a = at();
    const r = await up(p, s);
    ev.push(`upsert ${p.length} ${a}-${at()}`);
    return r;
  };
  const c0 = process.cpuUsage();
  const th0 = threadCpuMs();
  const server0 = serverCpuMs();
  t0 = process.hrtime.bigint();
  await ingestFiles(
    CORPORA_FILES.map(corpusPath),
    { batchSize: Number(process.env.BATCH ?? DEFAULT_BATCH_SIZE), fileLimit: per },
    { index, embedder: wrapped, enricher, checkpoints: new CheckpointStore(dataDir), log: () => {} },
    (o) => {
      if ("error" in o) throw o.error;
    },
  );
  const written = at();
  // Closed inside the window, as the ratio part times it: the writer's final optimize is part of the run.
  await index.close();
  const end = at();
  console.log(
    "   pipeline threads: " +
      threadCpuDiff(th0, threadCpuMs()) +
      (weaviate ? `, weaviate-server ${serverCpuMs() - server0}` : ""),
  );
  const c = process.cpuUsage(c0);
  console.log(
    `round ${round}: first embed ${firstEmbed}, last embed done ${lastEmbedDone}, last write ${written}, closed ${end} ms; ${ev.join("; ")}; process CPU ${((c.user + c.system) / 1000).toFixed(0)} ms`,
  );
  if (!process.env.NORAW) {
    const r0 = process.cpuUsage();
    const th1 = threadCpuMs();
    const w0 = process.hrtime.bigint();
    await Promise.all(calls.map((c) => embedder.embed(c)));
    const rc = process.cpuUsage(r0);
    console.log("   raw threads: " + threadCpuDiff(th1, threadCpuMs()));
    console.log(
      `   raw: ${(Number(process.hrtime.bigint() - w0) / 1e6).toFixed(0)} ms wall, CPU ${((rc.user + rc.system) / 1000).toFixed(0)} ms`,
    );
  }
  await enricher.close();
  await cleanup();
}
await embedder.close();
await weaviate?.stop();
