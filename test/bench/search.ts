/**
 * Search latency benchmark for one backend: the service runs in its own process over the kept
 * index (see serve-child.ts); this process calls SemanticSearch and VectorSearch over REST and
 * gRPC and reports p50/p95/p99 and throughput:
 *
 * - concurrency 1, cold query cache: every query is new to the service (QueryPool);
 * - concurrency 1, warm: the same queries again (their embeddings are now cached);
 * - concurrency 16, warm: 16 callers over the cached queries.
 *
 * Rounds repeat every configuration, interleaved (REST, gRPC, REST, ...) so background load hits
 * all alike; each figure is the median over rounds. Then the split: for fresh queries, the
 * end-to-end gRPC time next to the query embedding, the engine call and the summary, measured
 * in this process with the same embedder, index configuration and arguments as SearchCore.
 */
import { loadConfig } from "../../src/config.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import type { RunStats } from "./latency.js";
import { runCalls } from "./latency.js";
import type { Method, Protocol, SearchCall } from "./search-clients.js";
import { grpcCall, restCall } from "./search-clients.js";
import { loadBenchQueries, QueryPool } from "./search-queries.js";
import { spawnService } from "./service-process.js";
import { median, msSince } from "./stats.js";

/** One configuration's medians over rounds. */
export interface LatencyRow {
  method: Method;
  protocol: Protocol;
  concurrency: number;
  cache: "cold" | "warm";
  rounds: number;
  callsPerRun: number;
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  anyCapped: boolean;
  /** Failed calls over all rounds (not timed). */
  errors: number;
  firstError?: string;
}

/** Where the time of a cold call goes (medians over queries, ms). */
export interface SplitRow {
  method: Method;
  queries: number;
  endToEnd: number;
  embed: number;
  engine: number;
  summary: number;
  /** Median over queries of end-to-end minus the three parts: transport, auth, limits, mapping. */
  overhead: number;
}

/** The search section for one backend. */
export interface SearchResult {
  backend: string;
  posts: number;
  coldQueriesPerRun: number;
  hybridAlpha: number;
  rows: LatencyRow[];
  split: SplitRow[];
}

/** Options of {@link benchSearch}. */
export interface SearchOptions {
  /** Cold queries per configuration over all rounds. */
  queries: number;
  rounds: number;
}

const METHODS: readonly Method[] = ["semantic", "vector"];
const PROTOCOLS: readonly Protocol[] = ["rest", "grpc"];
const SPLIT_QUERIES = 40;
const WARMUP = 10;
const C16_CALLS = 160;
const RUN_CAP_MS = 120_000;

function summarise(
  method: Method,
  protocol: Protocol,
  concurrency: number,
  cache: "cold" | "warm",
  runs: RunStats[],
): LatencyRow {
  return {
    method,
    protocol,
    concurrency,
    cache,
    rounds: runs.length,
    callsPerRun: median(runs.map((r) => r.calls)),
    p50: median(runs.map((r) => r.p50)),
    p95: median(runs.map((r) => r.p95)),
    p99: median(runs.map((r) => r.p99)),
    rps: median(runs.map((r) => r.rps)),
    anyCapped: runs.some((r) => r.capped),
    errors: runs.reduce((s, r) => s + r.errors, 0),
    ...(runs.find((r) => r.firstError !== undefined)
      ? { firstError: runs.find((r) => r.firstError !== undefined)!.firstError! }
      : {}),
  };
}

/** Measures search latency against `target` (which must already hold the ingested posts). */
export async function benchSearch(
  target: BackendTarget,
  opts: SearchOptions,
  log: (s: string) => void,
): Promise<SearchResult> {
  const pool = new QueryPool(loadBenchQueries());
  const perRun = Math.max(
    10,
    Math.min(
      Math.floor(opts.queries / opts.rounds),
      Math.floor((pool.left - 4 * WARMUP - 2 * SPLIT_QUERIES) / (4 * opts.rounds)),
    ),
  );
  const svc = await spawnService(target.dataDir, target.env);
  log(
    `search ${target.backend}: service pid ${svc.pid} up with ${svc.posts} posts; ${perRun} cold queries per run, ${opts.rounds} rounds`,
  );
  const grpcClients: { close: () => void }[] = [];
  const calls = new Map<string, SearchCall>();
  for (const m of METHODS) {
    calls.set(`${m}/rest`, restCall(svc.url, svc.key, m));
    const g = grpcCall(svc.address, svc.key, m);
    grpcClients.push(g);
    calls.set(`${m}/grpc`, g.call);
  }
  const runs = new Map<string, RunStats[]>();
  const push = (k: string, r: RunStats): void => void runs.set(k, [...(runs.get(k) ?? []), r]);
  try {
    for (const [, call] of calls)
      for (const q of pool.take(WARMUP))
        await call(q).catch((err: Error) => log(`warm-up call failed: ${err.message}`));
    for (let round = 0; round < opts.rounds; round++) {
      for (const m of METHODS) {
        for (const p of PROTOCOLS) {
          const call = calls.get(`${m}/${p}`)!;
          const qs = pool.take(perRun);
          const cold = await runCalls(call, qs, 1, RUN_CAP_MS);
          const warm = await runCalls(call, qs, 1, RUN_CAP_MS);
          const many = Array.from({ length: C16_CALLS }, (_, i) => qs[i % qs.length]!);
          const c16 = await runCalls(call, many, 16, RUN_CAP_MS);
          push(`${m}/${p}/1/cold`, cold);
          push(`${m}/${p}/1/warm`, warm);
          push(`${m}/${p}/16/warm`, c16);
          log(
            `search ${target.backend} r${round + 1} ${m}/${p}: cold p50 ${cold.p50.toFixed(1)} ms, warm p50 ${warm.p50.toFixed(1)} ms, c16 ${c16.rps.toFixed(0)} req/s p50 ${c16.p50.toFixed(1)} ms`,
          );
        }
      }
    }
    const rows: LatencyRow[] = [];
    for (const [k, rs] of runs) {
      const [m, p, c, cache] = k.split("/") as [Method, Protocol, string, "cold" | "warm"];
      rows.push(summarise(m, p, Number(c), cache, rs));
    }
    const split = await measureSplit(target, svc.address, svc.key, pool, log);
    if (svc.logTail().trim() !== "") log(`search ${target.backend}: service warnings:\n${svc.logTail().slice(-1500)}`);
    return {
      backend: target.backend,
      posts: svc.posts,
      coldQueriesPerRun: perRun,
      hybridAlpha: loadConfig({ ...target.env }).hybridAlpha,
      rows,
      split,
    };
  } catch (err) {
    log(`search ${target.backend} failed; service log tail:\n${svc.logTail().slice(-3000)}`);
    throw err;
  } finally {
    for (const g of grpcClients) g.close();
    await svc.stop();
  }
}

async function measureSplit(
  target: BackendTarget,
  address: string,
  key: string,
  pool: QueryPool,
  log: (s: string) => void,
): Promise<SplitRow[]> {
  const config = loadConfig({ ...target.env });
  const embedder = await startUseEmbedder(config.embedWorkers);
  const index = await indexFor(target);
  await index.open(embedder.model, embedder.dimensions);
  const summarizer = createExtractiveSummarizer();
  const out: SplitRow[] = [];
  try {
    for (const m of METHODS) {
      const g = grpcCall(address, key, m);
      const parts = {
        endToEnd: [] as number[],
        embed: [] as number[],
        engine: [] as number[],
        summary: [] as number[],
        overhead: [] as number[],
      };
      const signal = AbortSignal.timeout(600_000);
      try {
        for (const q of pool.take(SPLIT_QUERIES)) {
          let t = process.hrtime.bigint();
          await g.call(q);
          const e2e = msSince(t);
          t = process.hrtime.bigint();
          const [vector] = await embedder.embed([q], signal);
          const embed = msSince(t);
          t = process.hrtime.bigint();
          const hits =
            m === "semantic"
              ? await index.hybrid(
                  { text: q, vector: vector!, alpha: config.hybridAlpha, limit: 11, offset: 0, filter: {} },
                  signal,
                )
              : await index.nearVector({ vector: vector!, limit: 11, offset: 0, filter: {} }, signal);
          const engine = msSince(t);
          t = process.hrtime.bigint();
          if (m === "semantic")
            await summarizer.summarize(
              q,
              hits.slice(0, 10).map((h) => ({
                title: h.post.title,
                content: h.post.content,
                subforum: h.post.subforum,
                relevance: h.score,
              })),
              signal,
            );
          const summary = m === "semantic" ? msSince(t) : 0;
          parts.endToEnd.push(e2e);
          parts.embed.push(embed);
          parts.engine.push(engine);
          parts.summary.push(summary);
          parts.overhead.push(e2e - embed - engine - summary);
        }
      } finally {
        g.close();
      }
      const row: SplitRow = {
        method: m,
        queries: parts.endToEnd.length,
        endToEnd: median(parts.endToEnd),
        embed: median(parts.embed),
        engine: median(parts.engine),
        summary: median(parts.summary),
        overhead: median(parts.overhead),
      };
      log(
        `split ${target.backend} ${m}: e2e ${row.endToEnd.toFixed(1)} = embed ${row.embed.toFixed(1)} + engine ${row.engine.toFixed(1)} + summary ${row.summary.toFixed(2)} + overhead ${row.overhead.toFixed(1)} ms`,
      );
      out.push(row);
    }
  } finally {
    await index.close();
    await embedder.close();
  }
  return out;
}
