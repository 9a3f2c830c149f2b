/**
 * Measures the sentence encoder's raw throughput and the ingest pipeline's throughput on the
 * same posts, on this machine (raw measured before and after the ingest, averaged): `node --import tsx test/ingest/throughput.ts [N]` (default 768
 * posts from the start of the reddit dump, self-posts and link posts mixed). Raw = every batch
 * submitted at once to the embedder (its queue never runs dry, the best it can do); ingest =
 * ingestFile into a fresh LanceDB index in a temp dir (read, VADER, embed, write, checkpoint).
 * Prints the machine, load average, both rates and their ratio. Not part of `npm test` (heavy).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { postEmbeddingText } from "../../src/enrich/embed-text.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFile } from "../../src/ingest/pipeline.js";
import { allItems, CORPORA } from "./corpora.js";

const n = Number(process.argv[2] ?? 768);
const workers = Number(process.env.EMBED_WORKERS ?? 2);
const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-throughput-"));
try {
  const dump = path.join(CORPORA, "reddit_top2013/submissions_top2013.ndjson.zst");
  const lines = execFileSync("sh", ["-c", `zstd -dc --long=31 '${dump}' | head -n ${n}`], {
    maxBuffer: 1 << 30,
  }).toString();
  const input = path.join(dir, "sample.ndjson");
  writeFileSync(input, lines);
  const posts = (await allItems(input)).flatMap((i) => ("post" in i ? [i.post] : []));
  const texts = posts.map(postEmbeddingText);
  const embedder = await startUseEmbedder(workers);
  await embedder.embed(["warm up"]);

  // CPU time of the whole process (all threads: workers, LanceDB) per post is also recorded: on
  // a shared machine wall-clock rates drift with other people's load, CPU cost per post does not.
  const cpuSeconds = (since: NodeJS.CpuUsage): number => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1e6;
  };
  const rawCpu: number[] = [];
  const raw = async (): Promise<number> => {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const batches: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += 256) batches.push(embedder.embed(texts.slice(i, i + 256)));
    await Promise.all(batches);
    rawCpu.push(cpuSeconds(cpu) / texts.length);
    return texts.length / ((performance.now() - start) / 1000);
  };
  // Raw is measured before and after the ingest and averaged, because the machine is shared
  // and its load drifts.
  const rawBefore = await raw();

  const index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(path.join(dir, "data")) });
  await index.open(embedder.model, embedder.dimensions);
  const ingestStart = performance.now();
  const ingestCpuStart = process.cpuUsage();
  const enricher = await createIngestEnricher(path.join(dir, "data"), embedder);
  const result = await ingestFile(
    input,
    { batchSize: 256 },
    { index, embedder, enricher, checkpoints: new CheckpointStore(path.join(dir, "data")), log: () => undefined },
  ).finally(() => enricher.close());
  const ingestRate = result.postsThisRun / ((performance.now() - ingestStart) / 1000);
  const ingestCpu = cpuSeconds(ingestCpuStart) / result.postsThisRun;
  const rawAfter = await raw();
  const rawRate = (rawBefore + rawAfter) / 2;
  await index.close();
  await embedder.close();

  const cpu = os.cpus();
  console.log(
    `machine: ${cpu.length} x ${cpu[0]?.model ?? "cpu"}, node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `posts: ${posts.length} (${posts.filter((p) => p.content !== "").length} with body), mean embedded text ${(texts.reduce((s, t) => s + t.length, 0) / texts.length).toFixed(0)} chars, ${workers} workers`,
  );
  console.log(
    `embedder raw: ${rawRate.toFixed(1)} texts/s (before ${rawBefore.toFixed(1)}, after ${rawAfter.toFixed(1)})`,
  );
  console.log(`ingest:       ${ingestRate.toFixed(1)} posts/s (${result.stats.inserted} inserted)`);
  console.log(`ratio:        ${((ingestRate / rawRate) * 100).toFixed(1)}% (wall clock)`);
  const rawCpuMean = rawCpu.reduce((a, b) => a + b, 0) / rawCpu.length;
  console.log(
    `CPU per post: raw ${(rawCpuMean * 1000).toFixed(1)} ms, ingest ${(ingestCpu * 1000).toFixed(1)} ms -> CPU-bound ratio ${((rawCpuMean / ingestCpu) * 100).toFixed(1)}%`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
