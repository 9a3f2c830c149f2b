/**
 * Insights latency for one backend: ListTrends over a one-month and a one-year window (ending on
 * the newest day with posts) and over the calendar year with the most posts (the newest year of
 * the benchmark corpora holds few), and FindLeads at concurrency 1 and 16, called over REST and gRPC
 * against the service running in its own process over the kept index (serve-child.ts), as the
 * search part does. Rounds interleave REST and gRPC, in alternating order, so background load
 * hits both alike; each figure is the median over rounds.
 *
 * Then, in this process and over the same store, what the trend rollups buy: the one-year
 * aggregate from the per-(topic, day) rollups next to the same aggregate read from every post
 * (a window shifted by 1 ms is not day-aligned, so it takes the post-level path), and for leads
 * the query embedding next to the engine's filtered hybrid call.
 */

import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { LeadService } from "../../gen/threadsight/v1/leads_pb.js";
import { TrendService } from "../../gen/threadsight/v1/trends_pb.js";
import { loadConfig } from "../../src/config.js";
import { LEAD_RELEVANCE_WEIGHT, LeadsCore } from "../../src/core/leads.js";
import { BASELINE_WINDOWS } from "../../src/core/trends/formulas.js";
import { TermCache } from "../../src/core/trends/term-cache.js";
import { KEYWORD_BODY_CHARS, KEYWORD_POSTS } from "../../src/core/trends.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { openTrendStore } from "../../src/index/open-trend-store.js";
import { DAY_MS, utcDay } from "../../src/topics/rollup.js";
import { postText } from "../../src/topics/terms.js";
import type { TopPostsAsk, TrendStore } from "../../src/topics/trend-store.js";
import { table } from "../eval/format.js";
import { createGrpcJsClient } from "../grpc/grpc-js-client.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import { knownVectors } from "./known-vectors.js";
import type { RunStats } from "./latency.js";
import { runCalls } from "./latency.js";
import { machineInfo, measuredWhen } from "./machine.js";
import type { StoredSection } from "./results-store.js";
import type { SearchCall } from "./search-clients.js";
import { loadBenchQueries, QueryPool } from "./search-queries.js";
import { spawnService } from "./service-process.js";
import { median, msSince } from "./stats.js";

type Op = "trends-month" | "trends-year" | "trends-busiest-year" | "leads";
/** The ListTrends operations, each with its window's place in the windows array. */
const TREND_OPS = ["trends-month", "trends-year", "trends-busiest-year"] as const;
type Protocol = "rest" | "grpc";

/** One configuration's medians over rounds. */
export interface InsightsRow {
  op: Op;
  protocol: Protocol;
  concurrency: number;
  rounds: number;
  callsPerRun: number;
  p50: number;
  p95: number;
  rps: number;
  errors: number;
  firstError?: string;
}

/** In-process timings, ms: medians of `calls` calls (hybrid rows: per-call means, median of 3 passes). */
export interface InsightsSplit {
  what: string;
  calls: number;
  p50: number;
}

/** The insights section for one backend. */
export interface InsightsResult {
  backend: string;
  posts: number;
  /** Whether the rollups covered every post (else every trends call read the posts). */
  rollupsFresh: boolean;
  topicsInYear: number;
  month: { start: string; end: string };
  year: { start: string; end: string };
  /** The calendar year with the most posts (absent in results stored before it was measured). */
  busiestYear?: { start: string; end: string; posts: number; topics: number };
  minScore: number;
  rows: InsightsRow[];
  split: InsightsSplit[];
}

/** Options of {@link benchInsights}. */
export interface InsightsOptions {
  rounds: number;
  /** Calls per trends run and per concurrency-1 leads run. */
  callsPerRun?: number;
}

const TRENDS_LIMIT = 10;
const LEADS_LIMIT = 10;
/** FindLeads min_score of the benchmark: a typical "real leads only" bar. */
const MIN_SCORE = 50;
/** Weaviate's own default flat-search cutoff, which FindLeads is also timed at. */
const WEAVIATE_DEFAULT_FLAT_SEARCH_CUTOFF = 40_000;
const C16_CALLS = 64;
const RUN_CAP_MS = 120_000;
const WARMUP = 5;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The request body of `op` (trends: the window; leads: the query). */
function body(op: Op, query: string, windows: InsightsResult["month"][]): Record<string, unknown> {
  if (op === "leads") return { query, limit: LEADS_LIMIT, minScore: MIN_SCORE };
  const w = windows[TREND_OPS.indexOf(op)]!;
  return { startDate: w.start, endDate: w.end, limit: TRENDS_LIMIT };
}

function restCaller(baseUrl: string, key: string, op: Op, windows: InsightsResult["month"][]): SearchCall {
  const url = `${baseUrl}${op === "leads" ? "/api/v1/leads" : "/api/v1/trends"}`;
  return async (query) => {
    const b = body(op, query, windows);
    // REST takes the proto field names.
    const json =
      op === "leads"
        ? { query: b.query, limit: b.limit, min_score: b.minScore }
        : { start_date: b.startDate, end_date: b.endDate, limit: b.limit };
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(json),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`REST ${op} answered ${res.status}: ${text.slice(0, 300)}`);
  };
}

function grpcCaller(
  address: string,
  key: string,
  op: Op,
  windows: InsightsResult["month"][],
): { call: SearchCall; close: () => void } {
  const service = op === "leads" ? LeadService : TrendService;
  const method = op === "leads" ? LeadService.method.findLeads : TrendService.method.listTrends;
  const client = createGrpcJsClient(service, address);
  const fn = (client as unknown as Record<string, (...a: unknown[]) => unknown>)[method.name]!;
  const call: SearchCall = (query) =>
    new Promise((resolve, reject) => {
      const md = new grpc.Metadata();
      md.set("authorization", `Bearer ${key}`);
      fn.call(
        client,
        create(method.input as never, body(op, query, windows) as never),
        md,
        { deadline: Date.now() + 30_000 },
        (err: grpc.ServiceError | null) => {
          if (err) reject(new Error(`gRPC ${op} failed: ${err.code} ${err.details}`));
          else resolve();
        },
      );
    });
  return { call, close: () => client.close() };
}

function summarise(op: Op, protocol: Protocol, concurrency: number, all: RunStats[]): InsightsRow {
  const failed = all.find((r) => r.firstError !== undefined);
  // Latencies come from the runs that completed (see tolerantRun); errors count every run.
  const runs = all.filter((r) => Number.isFinite(r.p50));
  return {
    op,
    protocol,
    concurrency,
    rounds: runs.length,
    callsPerRun: median(runs.map((r) => r.calls)),
    p50: median(runs.map((r) => r.p50)),
    p95: median(runs.map((r) => r.p95)),
    rps: median(runs.map((r) => r.rps)),
    errors: all.reduce((s, r) => s + r.errors, 0),
    ...(failed ? { firstError: failed.firstError! } : {}),
  };
}

/**
 * runCalls, but a run whose calls mostly failed is recorded as failed (every call an error, the
 * first message kept) instead of ending the part: the trends rows of the same rounds stay.
 */
async function tolerantRun(call: SearchCall, queries: readonly string[], concurrency: number): Promise<RunStats> {
  try {
    return await runCalls(call, queries, concurrency, RUN_CAP_MS);
  } catch (err) {
    return {
      calls: 0,
      p50: NaN,
      p95: NaN,
      p99: NaN,
      rps: 0,
      capped: false,
      errors: queries.length,
      firstError: (err as Error).message.slice(0, 300),
    };
  }
}

/**
 * The calendar year with the most posts, by the per-topic aggregates of each year from the newest
 * back (the corpora span under thirty years), as a ListTrends window.
 */
async function busiestYear(
  store: TrendStore,
  latest: number,
  signal: AbortSignal,
): Promise<NonNullable<InsightsResult["busiestYear"]>> {
  let best = { start: "", end: "", posts: -1, topics: 0 };
  const newest = new Date(latest).getUTCFullYear();
  for (let y = newest; y > newest - 30; y--) {
    const stats = await store.aggregateByTopic({ from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1) - 1 }, signal);
    const posts = stats.reduce((a, st) => a + st.count, 0);
    if (posts > best.posts) best = { start: `${y}-01-01`, end: `${y}-12-31`, posts, topics: stats.length };
  }
  return best;
}

/** Times `fn` `n` times in a row; the median in ms. */
async function timeMedian(n: number, fn: () => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    xs.push(msSince(t0));
  }
  return median(xs);
}

/** Measures ListTrends and FindLeads against `target` (which must hold posts with topics). */
export async function benchInsights(
  target: BackendTarget,
  opts: InsightsOptions,
  log: (s: string) => void,
): Promise<InsightsResult> {
  const perRun = opts.callsPerRun ?? 20;
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const store = await openTrendStore(config);
  const signal = new AbortController().signal;
  let result: InsightsResult;
  try {
    const latest = await store.latestCreated(signal);
    if (latest === undefined) throw new Error(`insights ${target.backend}: the index is empty`);
    const end = utcDay(latest);
    const month = { start: isoDay(end - 29 * DAY_MS), end: isoDay(end) };
    const year = { start: isoDay(end - 364 * DAY_MS), end: isoDay(end) };
    const yearWindow = { from: end - 364 * DAY_MS, to: end + DAY_MS - 1 };
    const fresh = await store.rollupsFresh(signal);
    const yearStats = await store.aggregateByTopic(yearWindow, signal);
    if (yearStats.length === 0)
      throw new Error(
        `insights ${target.backend}: no topics in the last year; run \`threadsight topics rebuild\` first`,
      );
    const busiest = await busiestYear(store, latest, signal);
    log(
      `insights ${target.backend}: busiest calendar year ${busiest.start.slice(0, 4)}, ${busiest.posts} posts in ${busiest.topics} topics`,
    );
    log(
      `insights ${target.backend}: ${fresh?.count ?? "?"} posts in rollups (${fresh ? "fresh" : "NOT fresh: the first read backfills them"}), ${yearStats.length} topics in ${year.start}..${year.end}`,
    );
    const split: InsightsSplit[] = [];
    const n = 9;
    split.push({
      what: "one-year aggregate from rollups",
      calls: n,
      p50: await timeMedian(n, () => store.aggregateByTopic(yearWindow, signal)),
    });
    split.push({
      what: "one-year baselines (8 windows) from rollups",
      calls: n,
      p50: await timeMedian(n, () =>
        store.countsByTopicAndBucket(
          { from: yearWindow.from - 8 * 365 * DAY_MS, to: yearWindow.from - 1 },
          365 * DAY_MS,
          signal,
        ),
      ),
    });
    const top = yearStats
      .sort((a, b) => b.count - a.count)
      .slice(0, TRENDS_LIMIT)
      .map((s) => s.topicId);
    split.push({
      what: "one-year top posts (100 per topic, 10 topics)",
      calls: n,
      p50: await timeMedian(n, () => store.topPosts(top, yearWindow, 100, signal)),
    });
    // What ListTrends itself runs: the window and its baselines in one call (from the held rollup
    // snapshot; the first call of a fresh store reads it), then the keyword posts of the window
    // and the previous one in one call, then their term counts (first counted, then cached).
    split.push({
      what: "one-year trend inputs (window + 8 baselines), snapshot held",
      calls: n,
      p50: await timeMedian(n, () => store.trendInputs(yearWindow, BASELINE_WINDOWS, signal)),
    });
    split.push({
      what: "one-year trend inputs, first call of a fresh store",
      calls: 3,
      p50: await timeMedian(3, async () => {
        const cold = await openTrendStore(config);
        try {
          await cold.trendInputs(yearWindow, BASELINE_WINDOWS, signal);
        } finally {
          await cold.close();
        }
      }),
    });
    const previousYear = { from: yearWindow.from - 365 * DAY_MS, to: yearWindow.from - 1 };
    const asks = [
      { topicIds: top, window: yearWindow },
      { topicIds: top, window: previousYear },
    ];
    split.push({
      what: "one-year keyword posts, window + previous (topPostsFor, text read by id after ranking)",
      calls: n,
      p50: await timeMedian(n, () => store.topPostsFor(asks, KEYWORD_POSTS, signal)),
    });
    // As ListTrends asks: with each window's post count for the topics, from its aggregates.
    const countsOf = (stats: readonly { topicId: string; count: number }[]) =>
      new Map(top.map((id) => [id, stats.find((st) => st.topicId === id)?.count ?? 0]));
    const counted: TopPostsAsk[] = [
      { ...asks[0]!, counts: countsOf(yearStats) },
      { ...asks[1]!, counts: countsOf(await store.aggregateByTopic(previousYear, signal)) },
    ];
    const total = (a: TopPostsAsk) => [...(a.counts?.values() ?? [])].reduce((x, y) => x + y, 0);
    split.push({
      what: `one-year keyword posts as ListTrends asks (${total(counted[0]!)} + ${total(counted[1]!)} posts in the windows)`,
      calls: n,
      p50: await timeMedian(n, () => store.topPostsFor(counted, KEYWORD_POSTS, signal)),
    });
    const keywordPosts = (await store.topPostsFor(asks, KEYWORD_POSTS, signal)).flatMap((m) => [...m.values()].flat());
    const count = (cache: TermCache) => () => {
      const into = new Map<string, number>();
      for (const p of keywordPosts) cache.addTo(p.id, postText(p.title, p.content, KEYWORD_BODY_CHARS), into);
      return Promise.resolve(into);
    };
    split.push({
      what: `keyword term counts, ${keywordPosts.length} posts, first count`,
      calls: 3,
      p50: await timeMedian(3, () => count(new TermCache())()),
    });
    const warm = new TermCache();
    await count(warm)();
    split.push({ what: "keyword term counts, cached", calls: n, p50: await timeMedian(n, count(warm)) });
    result = {
      backend: target.backend,
      posts: fresh?.count ?? 0,
      rollupsFresh: fresh !== undefined,
      topicsInYear: yearStats.length,
      month,
      year,
      busiestYear: busiest,
      minScore: MIN_SCORE,
      rows: [],
      split,
    };
  } finally {
    await store.close();
  }
  await leadsSplit(target, result, log);

  const pool = new QueryPool(loadBenchQueries());
  const svc = await spawnService(target.dataDir, target.env);
  log(
    `insights ${target.backend}: service pid ${svc.pid} up with ${svc.posts} posts; ${perRun} calls per run, ${opts.rounds} rounds`,
  );
  const windows = [result.month, result.year, result.busiestYear!];
  const closers: { close: () => void }[] = [];
  const calls = new Map<string, SearchCall>();
  for (const op of [...TREND_OPS, "leads"] as const) {
    calls.set(`${op}/rest`, restCaller(svc.url, svc.key, op, windows));
    const g = grpcCaller(svc.address, svc.key, op, windows);
    closers.push(g);
    calls.set(`${op}/grpc`, g.call);
  }
  const runs = new Map<string, RunStats[]>();
  const push = (k: string, r: RunStats): void => void runs.set(k, [...(runs.get(k) ?? []), r]);
  try {
    for (const [, call] of calls)
      for (const q of pool.take(WARMUP))
        await call(q).catch((err: Error) => log(`warm-up call failed: ${err.message}`));
    for (let round = 0; round < opts.rounds; round++) {
      // The order alternates from round to round, so neither protocol always runs right after
      // the other's 16-caller load (REST always led until 2026-11-23).
      for (const protocol of round % 2 === 0 ? (["rest", "grpc"] as const) : (["grpc", "rest"] as const)) {
        for (const op of TREND_OPS) {
          const r = await runCalls(
            calls.get(`${op}/${protocol}`)!,
            Array.from({ length: perRun }, () => ""),
            1,
            RUN_CAP_MS,
          );
          push(`${op}/${protocol}/1`, r);
          log(
            `insights ${target.backend} r${round + 1} ${op}/${protocol}: p50 ${r.p50.toFixed(1)} ms${r.errors ? ` (${r.errors} errors: ${r.firstError})` : ""}`,
          );
        }
        // Leads queries are new to the service at concurrency 1 (embedding included), then
        // repeated by 16 callers (embeddings cached: the index and ranking under load).
        const leads = calls.get(`leads/${protocol}`)!;
        const qs = pool.take(perRun);
        const c1 = await tolerantRun(leads, qs, 1);
        const c16 = await tolerantRun(
          leads,
          Array.from({ length: C16_CALLS }, (_, i) => qs[i % qs.length]!),
          16,
        );
        push(`leads/${protocol}/1`, c1);
        push(`leads/${protocol}/16`, c16);
        log(
          `insights ${target.backend} r${round + 1} leads/${protocol}: c1 p50 ${c1.p50.toFixed(1)} ms, c16 p50 ${c16.p50.toFixed(1)} ms ${c16.rps.toFixed(0)} req/s${c1.errors + c16.errors ? ` (errors: ${c1.firstError ?? c16.firstError})` : ""}`,
        );
      }
    }
    for (const [k, rs] of runs) {
      const [op, protocol, c] = k.split("/") as [Op, Protocol, string];
      result.rows.push(summarise(op, protocol, Number(c), rs));
    }
    if (svc.logTail().trim() !== "")
      log(`insights ${target.backend}: service warnings:\n${svc.logTail().slice(-1500)}`);
  } finally {
    for (const c of closers) c.close();
    await svc.stop();
  }
  return result;
}

/**
 * FindLeads' parts in this process: the query embedding; FindLeads after it (LeadsCore with the
 * vectors known: the filtered hybrid, reading its 30 candidates with their vectors, judging them
 * by the absolute relevance floor and ranking what passes); and, for
 * reference, the filtered hybrid reading all 30 candidates whole (as FindLeads did before it
 * ranked before reading) and the same without the filter.
 */
async function leadsSplit(target: BackendTarget, result: InsightsResult, log: (s: string) => void): Promise<void> {
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const embedder = await startUseEmbedder(config.embedWorkers);
  const index = await indexFor(target);
  try {
    await index.open(embedder.model, embedder.dimensions);
    const queries = loadBenchQueries().slice(-30);
    const vectors = await embedder.embed(queries);
    const embed: number[] = [];
    for (const q of queries.slice(0, 10)) {
      const t0 = process.hrtime.bigint();
      await embedder.embed([`${q} `]);
      embed.push(msSince(t0));
    }
    const engine = (minLeadScore: number | undefined) => async (): Promise<void> => {
      for (let i = 0; i < queries.length; i++) {
        await index.hybrid({
          text: queries[i]!,
          vector: vectors[i]!,
          alpha: config.hybridAlpha,
          limit: LEADS_LIMIT * 3,
          offset: 0,
          ...(minLeadScore === undefined ? {} : { filter: { minLeadScore } }),
        });
      }
    };
    const core = new LeadsCore({
      index,
      embedder: knownVectors(embedder.model, embedder.dimensions, new Map(queries.map((q, i) => [q, vectors[i]!]))),
      hybridAlpha: config.hybridAlpha,
      shortQueryAlpha: config.shortQueryAlpha,
    });
    const signal = new AbortController().signal;
    const found: string[][] = [];
    const leads = async (): Promise<void> => {
      found.length = 0;
      for (const query of queries)
        found.push((await core.find({ query, limit: LEADS_LIMIT, minScore: MIN_SCORE }, signal)).map((h) => h.post.id));
    };
    await engine(MIN_SCORE)();
    await leads();
    // Weaviate: the collection's flat-search cutoff (WEAVIATE_FLAT_SEARCH_CUTOFF) decides whether
    // the lead filter's ~25k matches are scanned exactly or searched with ACORN. FindLeads also
    // runs at Weaviate's own default, set by opening the collection with it (open applies the
    // setting) and put back before each pass of the others.
    const weaviateDefault = target.backend === "weaviate" ? WEAVIATE_DEFAULT_FLAT_SEARCH_CUTOFF : undefined;
    let cutoffNow: number | undefined;
    const setCutoff = async (cutoff: number | undefined): Promise<void> => {
      if (cutoff === cutoffNow) return;
      cutoffNow = cutoff;
      const env = { ...target.env, ...(cutoff === undefined ? {} : { WEAVIATE_FLAT_SEARCH_CUTOFF: String(cutoff) }) };
      const other = await indexFor({ ...target, env });
      await other.open(embedder.model, embedder.dimensions);
      await other.close();
    };
    // Per call: the mean over a pass of all queries, median of three passes; the passes of the
    // kinds take turns, so load that comes and goes hits each alike.
    const kinds: { what: string; run: () => Promise<void>; cutoff?: number }[] = [
      {
        what: `leads: FindLeads after the embedding (min_score ${MIN_SCORE}, 30 candidates judged by the absolute floor)`,
        run: leads,
      },
      { what: "leads: hybrid with lead filter, 30 candidates read whole (before)", run: engine(MIN_SCORE) },
      { what: "leads: hybrid without filter (reference)", run: engine(undefined) },
    ];
    if (weaviateDefault !== undefined)
      kinds.push({
        what: `leads: FindLeads after the embedding, flat-search cutoff ${weaviateDefault.toLocaleString("en-US")} (Weaviate's default)`,
        run: leads,
        cutoff: weaviateDefault,
      });
    const passes = kinds.map((): number[] => []);
    let agreeing = 0;
    let compared = 0;
    for (let pass = 0; pass < 3; pass++) {
      for (const [k, kind] of kinds.entries()) {
        if (weaviateDefault !== undefined) await setCutoff(kind.cutoff);
        passes[k]!.push((await timeMedian(1, kind.run)) / queries.length);
        if (kind.cutoff !== undefined && pass === 0) {
          // The leads this pass found (exact scan) against the configured setting's, same queries.
          const exactLeads = [...found];
          await setCutoff(undefined);
          await leads();
          for (const [i, exact] of exactLeads.entries()) {
            const mine = new Set(found[i]);
            agreeing += exact.filter((id) => mine.has(id)).length;
            compared += exact.length;
          }
        }
      }
    }
    if (weaviateDefault !== undefined) await setCutoff(undefined);
    result.split.push({ what: "leads: query embedding", calls: embed.length, p50: median(embed) });
    for (const [k, kind] of kinds.entries()) {
      const agreement =
        kind.cutoff !== undefined && compared > 0
          ? `; ${((100 * agreeing) / compared).toFixed(1)}% of its leads also in the configured setting's`
          : "";
      result.split.push({ what: kind.what + agreement, calls: queries.length * 3, p50: median(passes[k]!) });
    }
    log(
      `insights ${target.backend}: leads split ${result.split
        .slice(-kinds.length - 1)
        .map((s) => `${s.what} ${s.p50.toFixed(1)} ms`)
        .join("; ")} (rank blend ${LEAD_RELEVANCE_WEIGHT})`,
    );
  } finally {
    await index.close();
    await embedder.close();
  }
}

/** Runs the insights part on each backend over its own data (insights-prepare.ts); saves one section per backend. */
export async function benchInsightsAll(
  backends: readonly ("lancedb" | "weaviate")[],
  tag: string,
  opts: InsightsOptions,
  log: (s: string) => void,
  save: (key: string, section: StoredSection) => void,
): Promise<void> {
  const { lanceInsightsTarget, weaviateInsightsTarget } = await import("./insights-prepare.js");
  const lance = await lanceInsightsTarget(tag, log);
  if (backends.includes("lancedb")) {
    const m = machineInfo();
    const t0 = Date.now();
    const data = await benchInsights(lance, opts, log);
    save("insights:lancedb", { machine: m, durationS: (Date.now() - t0) / 1000, data });
  }
  if (backends.includes("weaviate")) {
    const { startBenchWeaviate } = await import("./weaviate-server.js");
    const weaviate = await startBenchWeaviate("weaviate-insights");
    try {
      const { target, copy } = await weaviateInsightsTarget(lance, tag, weaviate, log);
      const m = machineInfo();
      const t0 = Date.now();
      const data = await benchInsights(target, opts, log);
      save("insights:weaviate", {
        machine: m,
        durationS: (Date.now() - t0) / 1000,
        data: copy ? { ...data, copySeconds: copy.seconds } : data,
      });
    } finally {
      await weaviate.stop();
    }
  }
}

/** Goals of issue 5 on this machine. */
const GOALS = { trendsYearP50: { lancedb: 100, weaviate: 1000 } as Record<string, number>, leadsP50: 30 };

/** The fixed text above the insights sections of docs/BENCHMARKS.md. */
export const INSIGHTS_TEXT = [
  "Method: ListTrends (limit 10) over a one-month, a one-year and the busiest calendar year's window, and FindLeads",
  `(limit 10, min_score ${MIN_SCORE}) at concurrency 1 (fresh queries) and 16, over REST and gRPC against the service in its`,
  "own process, on a copy of the kept embedded index with topics rebuilt and a Weaviate filled from it without",
  "re-embedding; the split times each step in the benchmark process.",
  "Goals: ListTrends one year p50 <= 100 ms on LanceDB (and < 1 s on Weaviate at 1M posts); FindLeads p50 <= 30 ms.",
  "How it was reached: [decision 0012](decisions/0012-insights-latency.md); the trend read path: [decision 0009](decisions/0009-trends-read-from-rollups.md).",
];

/** One backend's insights section. */
export function insightsSection(s: StoredSection<InsightsResult & { copySeconds?: number }>): string {
  const d = s.data;
  const rows = [...d.rows]
    .sort((a, b) => a.op.localeCompare(b.op) || a.concurrency - b.concurrency || a.protocol.localeCompare(b.protocol))
    .map((r) => {
      const goalMs =
        r.op === "trends-year" || r.op === "trends-busiest-year"
          ? GOALS.trendsYearP50[d.backend]
          : r.op === "leads" && r.concurrency === 1
            ? GOALS.leadsP50
            : undefined;
      const goal = goalMs === undefined ? "" : `p50 <= ${goalMs} ms: ${r.p50 <= goalMs ? "met" : "**not met**"}`;
      const notes = [goal, r.errors > 0 ? `${r.errors} failed calls, e.g. ${r.firstError ?? ""}` : ""]
        .filter(Boolean)
        .join("; ");
      return [
        r.op,
        r.protocol,
        String(r.concurrency),
        String(r.callsPerRun),
        String(r.rounds),
        r.p50.toFixed(1),
        r.p95.toFixed(1),
        r.rps.toFixed(1),
        notes,
      ];
    });
  const when = measuredWhen(s.machine, s.durationS);
  return [
    `**${d.backend}**, ${d.posts.toLocaleString("en-US")} posts, ${d.topicsInYear} topics active in ${d.year.start}..${d.year.end} (month: ${d.month.start}..${d.month.end}${d.busiestYear ? `; busiest year: ${d.busiestYear.start}..${d.busiestYear.end}, ${d.busiestYear.posts.toLocaleString("en-US")} posts in ${d.busiestYear.topics} topics` : ""}); rollups ${d.rollupsFresh ? "fresh" : "**not fresh** (the first read backfilled them)"}${d.copySeconds === undefined ? "" : `; filled by copy in ${d.copySeconds.toFixed(0)} s`} (${when})`,
    "",
    table(
      ["operation", "protocol", "concurrency", "calls/run", "rounds", "p50 ms", "p95 ms", "req/s", "goal / notes"],
      rows,
    ),
    "",
    table(
      ["in-process step", "calls", "ms"],
      d.split.map((x) => [x.what, String(x.calls), x.p50.toFixed(1)]),
    ),
  ].join("\n");
}
