/**
 * What the worker hop costs one query embedding: real forum questions (search-queries.ts), each
 * embedded once by every path below, the paths interleaved query by query in a rotating order so
 * background load that comes and goes hits all of them alike.
 *
 * - worker: UseEmbedder with 2 worker threads (the service's embedder), one text per call.
 * - cached: the same embedder behind the query cache the service puts in front (a miss: every
 *   query is fresh), i.e. the service's own path around the model.
 * - main: a UseSession (the very session the workers build) held by this thread.
 * - tokenize: the tokenizer alone, in this thread.
 *
 * For each path it also reads how long this thread's event loop was busy during the call
 * (performance.eventLoopUtilization): onnxruntime-node's `run` (1.22, and the latest release
 * too) defers by a setImmediate and then runs the graph synchronously on the calling thread, so
 * a session held by the main thread blocks the event loop for the whole inference, which the
 * worker path does not.
 *
 * Then bursts of 16 concurrent queries (the same texts for both paths, paths alternating): the
 * time until all 16 are embedded, and the longest the event loop stalled meanwhile, which is
 * what every other request on the service would wait.
 *
 * Run: nice -n 10 node --import tsx test/bench/query-embed-hop.ts [queries] [bursts]
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import { cachedEmbedder } from "../../src/enrich/query-cache.js";
import { startUseEmbedder, USE_MAX_CHARS } from "../../src/enrich/use-embedder.js";
import { UseSession } from "../../src/enrich/use-onnx/use-session.js";
import { loadUseWeights } from "../../src/enrich/use-onnx/use-weights.js";
import { loadBenchQueries } from "./search-queries.js";
import { median, percentile } from "./stats.js";

type Path = "worker" | "cached" | "main" | "tokenize";
const PATHS: readonly Path[] = ["worker", "cached", "main", "tokenize"];
const WARMUP = 10;
const BURST = 16;

const loadavg = (): string => readFileSync("/proc/loadavg", "utf8").trim();

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 330);
  const bursts = Number(process.argv[3] ?? 20);
  const queries = loadBenchQueries();
  if (queries.length < WARMUP + n + bursts * BURST)
    throw new Error(`need ${WARMUP + n + bursts * BURST} queries, have ${queries.length}`);
  const workers = await startUseEmbedder(2);
  const cached = cachedEmbedder(workers, 10_000);
  const session = await UseSession.load(1);
  const { tokenizer } = new EmbeddingsModel({
    vocabulary: (await loadUseWeights()).vocabulary,
    model: undefined as never,
  });

  const run: Record<Path, (q: string) => Promise<unknown>> = {
    worker: (q) => workers.embed([q]),
    cached: (q) => cached.embed([q]),
    main: (q) => session.embed([q.slice(0, USE_MAX_CHARS)]),
    tokenize: async (q) => tokenizer.encode(q.slice(0, USE_MAX_CHARS)),
  };
  const wall = new Map(PATHS.map((p) => [p, [] as number[]]));
  const busy = new Map(PATHS.map((p) => [p, [] as number[]]));
  const loads: string[] = [loadavg()];
  const burstWall = new Map<Path, number[]>([
    ["worker", []],
    ["main", []],
  ]);
  const burstStall = new Map<Path, number[]>([
    ["worker", []],
    ["main", []],
  ]);
  try {
    for (const q of queries.slice(0, WARMUP)) for (const p of PATHS) await run[p](q);
    for (let i = 0; i < n; i += 1) {
      const q = queries[WARMUP + i]!;
      for (let k = 0; k < PATHS.length; k += 1) {
        const p = PATHS[(i + k) % PATHS.length]!;
        const elu0 = performance.eventLoopUtilization();
        const t0 = performance.now();
        await run[p](q);
        const ms = performance.now() - t0;
        const elu = performance.eventLoopUtilization(elu0);
        wall.get(p)!.push(ms);
        // Active time of this thread's event loop during the call (ELU counts time outside the
        // poll phase; the call's own synchronous work is part of it).
        busy.get(p)!.push(elu.active);
      }
      if (i % 100 === 99) loads.push(loadavg());
    }
    for (let b = 0; b < bursts; b += 1) {
      const texts = queries.slice(WARMUP + n + b * BURST, WARMUP + n + (b + 1) * BURST);
      const order: ("worker" | "main")[] = b % 2 === 0 ? ["worker", "main"] : ["main", "worker"];
      for (const p of order) {
        // A stall: the longest gap between ticks of a 1 ms timer, up to the burst's end (a loop
        // blocked throughout never ticks, which a delay histogram would report as no delay).
        const t0 = performance.now();
        let last = t0;
        let stall = 0;
        const ticker = setInterval(() => {
          const t = performance.now();
          stall = Math.max(stall, t - last);
          last = t;
        }, 1);
        await Promise.all(texts.map((q) => run[p](q)));
        const end = performance.now();
        clearInterval(ticker);
        burstWall.get(p)!.push(end - t0);
        burstStall.get(p)!.push(Math.max(stall, end - last));
      }
    }
  } finally {
    await session.close();
    await workers.close();
  }
  loads.push(loadavg());
  console.log(
    `query-embed-hop: ${n} fresh queries x ${PATHS.length} paths, interleaved; ${os.cpus().length} cpus (${os.cpus()[0]?.model})`,
  );
  console.log(`loadavg during run: ${loads.join(" | ")}`);
  for (const p of PATHS) {
    const w = wall.get(p)!;
    const b = busy.get(p)!;
    console.log(
      `${p.padEnd(9)} wall p50 ${median(w).toFixed(2)} ms  p95 ${percentile(w, 95).toFixed(2)}  mean ${(w.reduce((a, x) => a + x, 0) / w.length).toFixed(2)}` +
        `   | event loop busy p50 ${median(b).toFixed(2)} ms  p95 ${percentile(b, 95).toFixed(2)}`,
    );
  }
  // Per-query differences (same query, taken back to back), so load shifts cancel.
  const diff = (a: Path, b: Path): number[] => wall.get(a)!.map((x, i) => x - wall.get(b)![i]!);
  for (const [a, b] of [
    ["worker", "main"],
    ["cached", "worker"],
  ] as const) {
    const d = diff(a, b);
    console.log(
      `${a} - ${b} per query: p50 ${median(d).toFixed(2)} ms  p5 ${percentile(d, 5).toFixed(2)}  p95 ${percentile(d, 95).toFixed(2)}`,
    );
  }
  for (const p of ["worker", "main"] as const) {
    const w = burstWall.get(p)!;
    const st = burstStall.get(p)!;
    console.log(
      `burst of ${BURST} via ${p.padEnd(6)}: all done p50 ${median(w).toFixed(1)} ms  p95 ${percentile(w, 95).toFixed(1)}   | longest event-loop stall p50 ${median(st).toFixed(1)} ms  p95 ${percentile(st, 95).toFixed(1)}`,
    );
  }
}

await main();
