/**
 * Monitor benchmark, three measurements on the embedded backend, loopback only, bounded in posts
 * and time:
 *
 * 1. Ingest throughput with 0, 1,000 and 10,000 active monitors (monitor-mix.ts). A slice of the
 *    four corpora goes through `ingestFiles` as `threadsight ingest` runs it (the percolator on
 *    every written batch, its events into the SQLite outbox) into a fresh index, timed to the
 *    index's close. Monitors are created through MonitorsCore.create, the code CreateMonitor
 *    calls (spec validation included), for an account with no active-monitor limit as the
 *    enterprise plans have, straight into the store rather than over the network. Their queries
 *    are embedded once before the clock (timed apart: an ingest process pays it once when it
 *    starts, a server once per change of the monitors). Rounds alternate the three counts.
 * 2. Delivery latency: posts are written a batch at a time (the live-source path, `ingestPosts`)
 *    with 1,000 monitors active, all pointing at one loopback receiver that verifies each
 *    signature; the latency of an event is from its post's batch being handed to the writer to
 *    the receiver reading the body, with the delivery workers at their production settings.
 * 3. Deliveries per second: events already in the outbox, the workers started, timed until the
 *    receiver has them all: one monitor (in order, one at a time) and 100 monitors at once.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_BATCH_SIZE } from "../../src/cli/ingest.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFiles } from "../../src/ingest/ingest-files.js";
import { ingestPosts } from "../../src/ingest/pipeline.js";
import type { IndexedPost, Post } from "../../src/model/post.js";
import { DeliveryWorker } from "../../src/monitors/delivery-worker.js";
import { eventPayload } from "../../src/monitors/monitor-event.js";
import { monitorPercolator } from "../../src/monitors/monitor-percolator.js";
import { monitorQueryText } from "../../src/monitors/monitor-query.js";
import type { StoredMonitor } from "../../src/monitors/monitor-spec.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import { MONITORS_DB_FILE, openSqliteMonitorStore } from "../../src/monitors/sqlite-monitor-store.js";
import { SIGNATURE_HEADER, verifySignature } from "../../src/monitors/webhook-signature.js";
import { redditCorpusPosts, seCorpusPosts } from "../fakes/corpus-posts.js";
import { indexFor } from "./backends.js";
import { CORPORA_FILES, corpusPath } from "./corpora.js";
import { measuredWhen } from "./machine.js";
import { monitorMix, monitorTexts } from "./monitor-mix.js";
import type { StoredSection } from "./results-store.js";
import { fixed, median, msSince, percentile } from "./stats.js";

/** One monitor count of the ingest measurement. */
export interface MonitorIngestRow {
  monitors: number;
  /** Active monitors by kind. */
  kinds: Record<string, number>;
  /** Seconds to embed the monitors' queries once (0 with none). */
  compileS: number;
  postsPerS: number[];
  median: number;
  /** Events the percolator appended in the last round. */
  events: number;
}

/** Delivery latency with monitors active. */
export interface DeliveryLatency {
  monitors: number;
  posts: number;
  batch: number;
  batchEveryMs: number;
  events: number;
  received: number;
  badSignatures: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the event's row in the outbox (written right after the post's upsert) to the receiver. */
  fromOutbox: { p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number };
}

/** One deliveries-per-second run. */
export interface DeliveryRate {
  monitors: number;
  events: number;
  seconds: number;
  perS: number;
}

/** What the monitor benchmark stores. */
export interface MonitorBenchResult {
  posts: number;
  rounds: number;
  ingest: MonitorIngestRow[];
  latency: DeliveryLatency;
  rates: DeliveryRate[];
}

/** Options of one run. */
export interface MonitorBenchOptions {
  /** Posts per ingest round (a quarter from each corpus). */
  posts: number;
  rounds: number;
  counts: number[];
}

const quiet = (): void => undefined;
const OWNER = { accountId: "acct_bench", maxActiveMonitors: null, planName: "enterprise" };
const ALPHAS = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };

function scratchDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "threadsight-bench-monitors-"));
}

/** A loopback webhook receiver that verifies signatures and notes when each event arrived. */
async function startReceiver(secrets: ReadonlyMap<string, string>) {
  const arrived = new Map<string, { at: number; postId: string; written: number }>();
  let bad = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString("utf8");
      const event = JSON.parse(body) as { id: string; monitor_id: string; create_time: string; post: { id: string } };
      const secret = secrets.get(event.monitor_id);
      if (
        secret === undefined ||
        !verifySignature(String(req.headers[SIGNATURE_HEADER.toLowerCase()]), body, secret, at / 1000)
      ) {
        bad++;
        res.writeHead(401).end();
        return;
      }
      if (!arrived.has(event.id))
        arrived.set(event.id, { at, postId: event.post.id, written: Date.parse(event.create_time) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrived,
    bad: () => bad,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Creates the monitors in a fresh store file through MonitorsCore; returns the file and the monitors. */
async function monitorStoreFile(n: number, texts: readonly string[], url: string) {
  const dir = scratchDir();
  const file = path.join(dir, MONITORS_DB_FILE);
  const store = openSqliteMonitorStore(file);
  const core = new MonitorsCore(store);
  const monitors: StoredMonitor[] = [];
  try {
    for (const spec of monitorMix(texts, n, url)) monitors.push((await core.create(OWNER, spec)).monitor);
  } finally {
    await store.close();
  }
  return { dir, file, monitors };
}

/** An embedder that answers the monitors' queries from vectors embedded beforehand and refuses any other text. */
async function withQueryVectors(inner: Embedder, monitors: readonly StoredMonitor[]) {
  // The texts the percolator embeds (monitorQueryText: a query's subject, not its frame), so a
  // timed round finds every one known and measures matching, not the once-only compile.
  const queries = [...new Set(monitors.filter((m) => m.kind !== "keywords").map(monitorQueryText))];
  const t0 = process.hrtime.bigint();
  const vectors = queries.length === 0 ? [] : await inner.embed(queries);
  const compileS = msSince(t0) / 1000;
  const known = new Map(queries.map((q, i) => [q, vectors[i]!]));
  const embedder: Embedder = {
    model: inner.model,
    dimensions: inner.dimensions,
    embed: async (texts) => {
      const unknown = texts.find((t) => !known.has(t));
      if (unknown !== undefined) throw new Error(`bench: the percolator asked for an unprepared query: ${unknown}`);
      return texts.map((t) => known.get(t)!);
    },
    close: async () => {},
  };
  return { embedder, compileS };
}

async function withIndex<T>(dataDir: string, embedder: Embedder, run: (index: SearchIndex) => Promise<T>): Promise<T> {
  const index = await indexFor(
    { backend: "lancedb", dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } },
    { indexing: "auto" },
  );
  try {
    await index.open(embedder.model, embedder.dimensions);
    return await run(index);
  } finally {
    await index.close();
  }
}

/** One ingest of the slice with the monitors of `template` (none when undefined) active. */
async function ingestRound(
  embedder: Embedder,
  queryEmbedder: Embedder,
  template: string | undefined,
  perCorpus: number,
): Promise<{ postsPerS: number; events: number }> {
  const dataDir = scratchDir();
  try {
    if (template !== undefined) copyFileSync(template, path.join(dataDir, MONITORS_DB_FILE));
    const store = openSqliteMonitorStore(path.join(dataDir, MONITORS_DB_FILE));
    const enricher = await createIngestEnricher(dataDir, embedder);
    try {
      let events = 0;
      const upserted = monitorPercolator({
        store,
        embedder: queryEmbedder,
        alphas: ALPHAS,
        onEvents: (e) => {
          events += e.length;
        },
      });
      return await withIndex(dataDir, embedder, async (index) => {
        let posts = 0;
        const t0 = process.hrtime.bigint();
        await ingestFiles(
          CORPORA_FILES.map(corpusPath),
          { batchSize: DEFAULT_BATCH_SIZE, fileLimit: perCorpus },
          { index, embedder, enricher, checkpoints: new CheckpointStore(dataDir), log: quiet, upserted },
          (outcome) => {
            if ("error" in outcome) throw outcome.error;
            posts += outcome.result.postsThisRun;
          },
        );
        await index.close();
        return { postsPerS: posts / (msSince(t0) / 1000), events };
      });
    } finally {
      await enricher.close();
      await store.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureIngest(
  embedder: Embedder,
  texts: readonly string[],
  o: MonitorBenchOptions,
  log: (line: string) => void,
): Promise<MonitorIngestRow[]> {
  const perCorpus = Math.max(1, Math.floor(o.posts / CORPORA_FILES.length));
  const configs: { n: number; template?: string; dir?: string; queryEmbedder: Embedder; row: MonitorIngestRow }[] = [];
  try {
    for (const n of o.counts) {
      const t0 = process.hrtime.bigint();
      const made = n === 0 ? undefined : await monitorStoreFile(n, texts, "http://127.0.0.1:9/unused");
      const createdS = msSince(t0) / 1000;
      const kinds: Record<string, number> = {};
      for (const m of made?.monitors ?? []) kinds[m.kind] = (kinds[m.kind] ?? 0) + 1;
      const { embedder: queryEmbedder, compileS } = await withQueryVectors(embedder, made?.monitors ?? []);
      log(`monitors: ${n} created in ${fixed(createdS)} s, queries embedded in ${fixed(compileS)} s`);
      configs.push({
        n,
        ...(made !== undefined ? { template: made.file, dir: made.dir } : {}),
        queryEmbedder,
        row: { monitors: n, kinds, compileS, postsPerS: [], median: 0, events: 0 },
      });
    }
    // Warm-up: loads the model's kernels and the readers before anything is timed.
    await ingestRound(embedder, embedder, undefined, Math.min(64, perCorpus));
    for (let r = 0; r < o.rounds; r++) {
      for (const c of configs) {
        const res = await ingestRound(embedder, c.queryEmbedder, c.template, perCorpus);
        c.row.postsPerS.push(res.postsPerS);
        c.row.events = res.events;
        log(
          `monitors ingest round ${r + 1}/${o.rounds}, ${c.n} monitors: ${fixed(res.postsPerS)} posts/s, ${res.events} events`,
        );
      }
    }
    return configs.map((c) => ({ ...c.row, median: median(c.row.postsPerS) }));
  } finally {
    for (const c of configs) if (c.dir !== undefined) rmSync(c.dir, { recursive: true, force: true });
  }
}

/** Fresh posts for the delivery runs: corpus questions and submissions the ingest slices do not read. */
async function freshPosts(n: number): Promise<Post[]> {
  const se = (await seCorpusPosts(1000 + n)).slice(1000);
  const reddit = await redditCorpusPosts("Entrepreneur", n);
  const out: Post[] = [];
  for (let i = 0; out.length < n && i < n; i++) {
    if (se[i] !== undefined) out.push(se[i]!);
    if (reddit[i] !== undefined && out.length < n) out.push(reddit[i]!);
  }
  return out;
}

async function measureLatency(
  embedder: Embedder,
  texts: readonly string[],
  posts: readonly Post[],
  o: { monitors: number; batch: number; batchEveryMs: number },
  log: (line: string) => void,
): Promise<DeliveryLatency> {
  const secrets = new Map<string, string>();
  const receiver = await startReceiver(secrets);
  const made = await monitorStoreFile(o.monitors, texts, receiver.url);
  for (const m of made.monitors) secrets.set(m.id, m.secret);
  const dataDir = made.dir;
  const store = openSqliteMonitorStore(made.file);
  const enricher = await createIngestEnricher(dataDir, embedder);
  const worker = new DeliveryWorker({
    store,
    allowPrivate: true,
    onError: (err) => log(`delivery error: ${String(err)}`),
  });
  const written = new Map<string, number>();
  let events = 0;
  try {
    const { embedder: queryEmbedder } = await withQueryVectors(embedder, made.monitors);
    const upserted = monitorPercolator({
      store,
      embedder: queryEmbedder,
      alphas: ALPHAS,
      onEvents: (e) => {
        events += e.length;
      },
    });
    worker.start();
    await withIndex(dataDir, embedder, async (index) => {
      const enrichDeps = { index, embedder, enricher, upserted, origin: "sync" as const };
      for (let i = 0; i < posts.length; i += o.batch) {
        const started = Date.now();
        const batch = posts.slice(i, i + o.batch);
        for (const p of batch) written.set(p.id, started);
        await ingestPosts(batch, enrichDeps);
        const wait = started + o.batchEveryMs - Date.now();
        if (wait > 0) await sleep(wait);
      }
      // Everything written; wait (bounded) for the outbox to drain.
      const until = Date.now() + 60_000;
      while (receiver.arrived.size < events && Date.now() < until) await sleep(100);
    });
  } finally {
    await worker.stop();
    await enricher.close();
    await store.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const lags = [...receiver.arrived.values()].map((a) => a.at - written.get(a.postId)!);
  const fromOutbox = [...receiver.arrived.values()].map((a) => a.at - a.written);
  const res: DeliveryLatency = {
    monitors: o.monitors,
    posts: posts.length,
    batch: o.batch,
    batchEveryMs: o.batchEveryMs,
    events,
    received: receiver.arrived.size,
    badSignatures: receiver.bad(),
    p50Ms: percentile(lags, 50),
    p95Ms: percentile(lags, 95),
    p99Ms: percentile(lags, 99),
    maxMs: Math.max(...lags),
    fromOutbox: {
      p50Ms: percentile(fromOutbox, 50),
      p95Ms: percentile(fromOutbox, 95),
      p99Ms: percentile(fromOutbox, 99),
      maxMs: Math.max(...fromOutbox),
    },
  };
  log(
    `monitors delivery latency: ${res.received}/${res.events} events, p50 ${fixed(res.p50Ms)} ms, p99 ${fixed(res.p99Ms)} ms; from the outbox row p99 ${fixed(res.fromOutbox.p99Ms)} ms`,
  );
  return res;
}

/** The post as the percolator sees it, for events appended straight to the outbox. */
function indexed(p: Post, dimensions: number): IndexedPost {
  return {
    ...p,
    sentiment: "neutral",
    sentimentScore: 0,
    leadType: "",
    leadScore: 0,
    painPoint: "",
    opportunity: "",
    industry: "",
    targetProduct: "",
    topicId: "",
    vector: new Float32Array(dimensions),
  };
}

async function measureRate(
  texts: readonly string[],
  posts: readonly Post[],
  monitors: number,
  perMonitor: number,
  dimensions: number,
  log: (line: string) => void,
): Promise<DeliveryRate> {
  const secrets = new Map<string, string>();
  const receiver = await startReceiver(secrets);
  const made = await monitorStoreFile(monitors, texts, receiver.url);
  for (const m of made.monitors) secrets.set(m.id, m.secret);
  const store: MonitorStore = openSqliteMonitorStore(made.file);
  const worker = new DeliveryWorker({
    store,
    allowPrivate: true,
    onError: (err) => log(`delivery error: ${String(err)}`),
  });
  try {
    const rows = posts.slice(0, perMonitor).map((p) => indexed(p, dimensions));
    const appended = await store.append(
      made.monitors.flatMap((monitor) =>
        rows.map((post) => ({
          monitorId: monitor.id,
          postId: post.id,
          payload: eventPayload({ monitor, post, relevance: 0.8, matchedTerms: [] }, "ingest"),
          channels: monitor.channels.length,
        })),
      ),
      Date.now(),
    );
    const t0 = process.hrtime.bigint();
    worker.start();
    const until = Date.now() + 120_000;
    while (receiver.arrived.size < appended.length && Date.now() < until) await sleep(20);
    const seconds = msSince(t0) / 1000;
    if (receiver.arrived.size < appended.length || receiver.bad() > 0)
      throw new Error(
        `deliveries: ${receiver.arrived.size} of ${appended.length} arrived in ${fixed(seconds)} s, ${receiver.bad()} with a bad signature`,
      );
    const res = { monitors, events: appended.length, seconds, perS: appended.length / seconds };
    log(`monitors deliveries, ${monitors} monitor(s): ${res.events} in ${fixed(seconds)} s, ${fixed(res.perS)}/s`);
    return res;
  } finally {
    await worker.stop();
    await store.close();
    await receiver.close();
    rmSync(made.dir, { recursive: true, force: true });
  }
}

/** Runs the three measurements. */
export async function benchMonitors(o: MonitorBenchOptions, log: (line: string) => void): Promise<MonitorBenchResult> {
  const embedder = await startUseEmbedder(2);
  try {
    log("monitors: embedded index only (the percolator and outbox do not depend on the search backend)");
    const texts = await monitorTexts(Math.max(...o.counts, 1000));
    const ingest = await measureIngest(embedder, texts, o, log);
    const posts = await freshPosts(400);
    const latency = await measureLatency(
      embedder,
      texts,
      posts.slice(0, 200),
      { monitors: 1000, batch: 10, batchEveryMs: 2000 },
      log,
    );
    const rates = [
      await measureRate(texts, posts, 1, 300, embedder.dimensions, log),
      await measureRate(texts, posts, 100, 20, embedder.dimensions, log),
    ];
    return { posts: o.posts, rounds: o.rounds, ingest, latency, rates };
  } finally {
    await embedder.close();
  }
}

/** The report section. */
export function monitorsSection(s: StoredSection): string {
  const d = s.data as MonitorBenchResult;
  const base = d.ingest.find((r) => r.monitors === 0)?.median;
  const kinds = (r: MonitorIngestRow): string =>
    Object.entries(r.kinds)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ") || "-";
  const l = d.latency;
  return [
    `Embedded index; ${measuredWhen(s.machine, s.durationS)}.`,
    "",
    `Ingest (${d.posts} posts, a quarter from each corpus, ${d.rounds} rounds; goal at 10,000 monitors: >= 85% of the rate with none):`,
    "",
    "| active monitors | kinds | queries embedded once, s | posts/s per round | median posts/s | vs none | events |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...d.ingest.map(
      (r) =>
        `| ${r.monitors.toLocaleString("en-US")} | ${kinds(r)} | ${fixed(r.compileS)} | ${r.postsPerS.map((x) => fixed(x)).join(", ")} | ${fixed(r.median)} | ${base === undefined ? "-" : `${fixed((100 * r.median) / base)}%`} | ${r.events.toLocaleString("en-US")} |`,
    ),
    "",
    `Delivery latency, a post's batch handed to the writer to the webhook reading the event (${l.monitors.toLocaleString("en-US")} monitors active, ${l.posts} posts in batches of ${l.batch} every ${fixed(l.batchEveryMs / 1000)} s; ${l.received} of ${l.events} events received, ${l.badSignatures} bad signatures; goal p99 <= 5 s): p50 ${fixed(l.p50Ms / 1000, 2)} s, p95 ${fixed(l.p95Ms / 1000, 2)} s, **p99 ${fixed(l.p99Ms / 1000, 2)} s**, max ${fixed(l.maxMs / 1000, 2)} s. From the event's outbox row (written as the post's upsert returns) to the receiver: p50 ${fixed(l.fromOutbox.p50Ms / 1000, 2)} s, p95 ${fixed(l.fromOutbox.p95Ms / 1000, 2)} s, p99 ${fixed(l.fromOutbox.p99Ms / 1000, 2)} s.`,
    "",
    "Webhook deliveries per second to the loopback receiver, events already in the outbox:",
    "",
    "| monitors | events | seconds | deliveries/s |",
    "| --- | --- | --- | --- |",
    ...d.rates.map((r) => `| ${r.monitors} | ${r.events} | ${fixed(r.seconds)} | ${fixed(r.perS)} |`),
  ].join("\n");
}
