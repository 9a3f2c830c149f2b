/**
 * The query side of the scaling benchmark, in a process of its own so its memory is the
 * index's and not the loader's: the embedder starts and embeds every query first (cached, as
 * the service's LRU would), then RSS is read (the baseline), then the index is opened and
 * SearchCore (the service's own search code: embed via the cache, index query, paging, snippet
 * and, for semantic, the extractive summary) answers one warm-up pass and `rounds` timed passes,
 * semantic and vector interleaved. Query embeddings are cached in every timed call, so the
 * latency is what grows with the index; embedding a query costs the same at every size.
 * Beside wall-clock latency it records the CPU time each call cost the processes doing the work
 * (this process, which embeds LanceDB, plus the Weaviate server when `serverPid` is given): on a
 * shared machine wall time is mostly waiting for a core, while CPU per call measures the work.
 * Prints one JSON line (ChildReport) and exits.
 *
 * Run: node --import tsx test/bench/scaling-child.ts '<json {env, queries, rounds, serverPid?}>'
 */

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadConfig } from "../../src/config.js";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import { cachedEmbedder } from "../../src/enrich/query-cache.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import { procCpuMs } from "./proc-cpu.js";
import { median, msSince, percentile } from "./stats.js";

/** What the child measured; latencies are medians over rounds of each round's percentile. */
export interface ChildReport {
  posts: number;
  queries: number;
  rounds: number;
  semanticP50: number;
  semanticP95: number;
  vectorP50: number;
  vectorP95: number;
  /** CPU ms per call (this process + the Weaviate server when measured): median over passes of each pass's mean. */
  semanticCpuMs?: number;
  vectorCpuMs?: number;
  /** Whether the CPU figures include the engine server's CPU. */
  cpuIncludesServer?: boolean;
  /** RSS with the embedder loaded and the queries embedded, before the index is opened (MiB). */
  rssBaseMiB: number;
  /** RSS after the timed rounds, and the peak over the child's life (MiB). */
  rssMiB: number;
  rssPeakMiB: number;
}

const MIB = 2 ** 20;

function peakRssMiB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

const { env, queries, rounds, serverPid } = JSON.parse(process.argv[2] ?? "{}") as {
  env: Record<string, string>;
  queries: string[];
  rounds: number;
  serverPid?: number;
};

/** CPU ms spent so far by this process (all threads) and the server. */
function cpuNow(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + (serverPid === undefined ? 0 : procCpuMs(serverPid));
}
const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...env });
const embedder = cachedEmbedder(await startUseEmbedder(2), queries.length + 16);
const signal = new AbortController().signal;
try {
  for (let i = 0; i < queries.length; i += 16) await embedder.embed(queries.slice(i, i + 16));
  const rssBaseMiB = process.memoryUsage().rss / MIB;
  const index = await openSearchIndex(config);
  const info = await index.open(embedder.model, embedder.dimensions);
  const core = new SearchCore({
    index,
    embedder,
    summarizer: createExtractiveSummarizer(),
    hybridAlpha: config.hybridAlpha,
    shortQueryAlpha: config.shortQueryAlpha,
    pageTokens: new PageTokens(randomBytes(32)),
  });
  const params = (query: string) => ({ query, limit: 10, subforums: [], pageToken: "", startDate: "", endDate: "" });
  const sem: number[][] = [];
  const vec: number[][] = [];
  const semCpu: number[] = [];
  const vecCpu: number[] = [];
  let rssMiB = Number.NaN;
  try {
    for (let r = 0; r <= rounds; r++) {
      const s: number[] = [];
      const v: number[] = [];
      let sc = 0;
      let vc = 0;
      for (const q of queries) {
        let c0 = cpuNow();
        let t0 = process.hrtime.bigint();
        await core.semantic(params(q), signal);
        s.push(msSince(t0));
        sc += cpuNow() - c0;
        c0 = cpuNow();
        t0 = process.hrtime.bigint();
        await core.vector(params(q), signal);
        v.push(msSince(t0));
        vc += cpuNow() - c0;
      }
      // Round 0 warms the engine's caches (and Weaviate's connection); it is not reported.
      if (r > 0) {
        sem.push(s);
        vec.push(v);
        semCpu.push(sc / queries.length);
        vecCpu.push(vc / queries.length);
      }
    }
    rssMiB = process.memoryUsage().rss / MIB;
  } finally {
    await index.close();
  }
  const report: ChildReport = {
    posts: info.count,
    queries: queries.length,
    rounds,
    semanticP50: median(sem.map((x) => percentile(x, 50))),
    semanticP95: median(sem.map((x) => percentile(x, 95))),
    vectorP50: median(vec.map((x) => percentile(x, 50))),
    vectorP95: median(vec.map((x) => percentile(x, 95))),
    semanticCpuMs: median(semCpu),
    vectorCpuMs: median(vecCpu),
    cpuIncludesServer: serverPid !== undefined,
    rssBaseMiB,
    rssMiB,
    rssPeakMiB: peakRssMiB(),
  };
  process.stdout.write(JSON.stringify(report) + "\n");
} finally {
  await embedder.close();
}
