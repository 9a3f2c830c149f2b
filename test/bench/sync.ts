/**
 * Live-sync benchmark, three measurements over the local Hacker News API (test/fakes/), loopback
 * only, bounded in posts and time:
 *
 * 1. Throughput: the same corpus stories written by plain `ingest` (their API items as JSON
 *    Lines through `ingestFile` at its default batch size) and by one scheduler poll walking
 *    them from the fake (stories with a comment each, so twice as many items are fetched as are
 *    posts), each into a fresh embedded index, timed to the index's close, with the process's
 *    CPU time. Rounds alternate, so load from other processes hits both alike. The fake is on
 *    loopback, so the politeness spacing is off (`minIntervalMs: 0`): the rate is the
 *    pipeline's, not the one a real API is asked for.
 * 2. Where the difference goes: the same poll's connector alone (every request, no embedding or
 *    writes), its wall and CPU time; the fake answers in this process, so its CPU is included.
 * 3. Lag: with the scheduler running on the poll interval and the default politeness, a story
 *    is published on the fake every `publishEveryMs`; the lag is from its publication to the
 *    index returning it by id.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_BATCH_SIZE } from "../../src/cli/ingest.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFile } from "../../src/ingest/pipeline.js";
import type { Post } from "../../src/model/post.js";
import { CONNECTORS } from "../../src/sources/connectors.js";
import { createPoliteClient } from "../../src/sources/http/polite-client.js";
import { openSqliteSourceStore } from "../../src/sources/store/sqlite-source-store.js";
import { runScheduler } from "../../src/sources/sync/scheduler.js";
import { hnCorpusPosts } from "../fakes/corpus-posts.js";
import { startFakeHn } from "../fakes/hackernews-server.js";
import { indexFor } from "./backends.js";
import type { MachineInfo } from "./machine.js";
import { loadText } from "./machine.js";
import { fixed, median, msSince, percentile } from "./stats.js";

/** What the sync benchmark stores. */
export interface SyncBenchResult {
  posts: number;
  rounds: number;
  /** Posts per `ingest` batch and most posts per sync write. */
  batchSize?: number;
  ingestPerS: number[];
  syncPerS: number[];
  /** Process CPU seconds per round (main thread, embedder workers and the in-process fake). */
  ingestCpuS?: number[];
  syncCpuS?: number[];
  /** The connector alone per round: wall and CPU seconds, requests. */
  fetchOnly?: { wallS: number[]; cpuS: number[]; requests: number };
  medianIngest: number;
  medianSync: number;
  /** Median over rounds of sync / ingest. */
  medianRatio: number;
  /** The same slice read by one poll through the Algolia backfill (100 stories per page). */
  backfill?: { perS: number[]; cpuS: number[]; medianPerS: number; medianRatio: number };
  lag: {
    intervalS: number;
    publishEveryMs: number;
    published: number;
    found: number;
    p50Ms: number;
    p95Ms: number;
    maxMs: number;
    /** Median duration of the polls that wrote posts, ms. */
    pollMs?: number;
  };
}

/** Options of one run. */
export interface SyncBenchOptions {
  posts: number;
  rounds: number;
  intervalS: number;
  lagSeconds: number;
  publishEveryMs: number;
}

const quiet = (): void => undefined;

/** One timed round: posts per second and process CPU seconds. */
interface Round {
  perS: number;
  cpuS: number;
}

const cpuSince = (c0: NodeJS.CpuUsage): number => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
};

async function scratch<T>(run: (dataDir: string, index: SearchIndex) => Promise<T>, embedder: Embedder): Promise<T> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-bench-sync-"));
  const index = await indexFor({ backend: "lancedb", dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } });
  try {
    await index.open(embedder.model, embedder.dimensions);
    return await run(dataDir, index);
  } finally {
    await index.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function ingestRound(stories: Post[], embedder: Embedder): Promise<Round> {
  const hn = await startFakeHn(stories);
  try {
    const items = hn.publish(stories.length, PUBLISHED_AT());
    return await scratch(async (dataDir, index) => {
      const file = path.join(dataDir, "hn-items.jsonl");
      writeFileSync(file, `${items.map((i) => JSON.stringify(i)).join("\n")}\n`);
      const enricher = await createIngestEnricher(dataDir, embedder);
      try {
        const c0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        const r = await ingestFile(
          file,
          { batchSize: DEFAULT_BATCH_SIZE },
          { index, embedder, enricher, checkpoints: new CheckpointStore(dataDir, "bench"), log: quiet },
        );
        await index.close();
        return { perS: r.stats.inserted / (msSince(t0) / 1000), cpuS: cpuSince(c0) };
      } finally {
        await enricher.close();
      }
    }, embedder);
  } finally {
    await hn.close();
  }
}

/** How a throughput poll reads the slice: the Firebase item walk, or an Algolia backfill. */
export type SyncPath = "walk" | "backfill";

/** When the throughput slice is published on the fake (epoch ms). */
const PUBLISHED_AT = (): number => Date.now() - 3_600_000;

/**
 * Settings of the throughput source: the whole slice in one poll, either walked item by item
 * from its first id, or backfilled through Algolia's search over the minute it was published in
 * (the walk then starts at maxitem, so nothing is read twice).
 */
function throughputSettings(url: string, stories: readonly Post[], via: SyncPath, publishedAtS: number) {
  if (via === "walk")
    return CONNECTORS.hackernews.validate({ firebaseUrl: url, backlog: 2 * stories.length, refreshUpdates: false });
  return CONNECTORS.hackernews.validate({
    firebaseUrl: url,
    algoliaUrl: url,
    backlog: 0,
    backfillFrom: publishedAtS - 60,
    backfillTo: publishedAtS + 60,
    refreshUpdates: false,
  });
}

async function syncRound(stories: Post[], embedder: Embedder, via: SyncPath): Promise<Round> {
  const hn = await startFakeHn(stories);
  try {
    const at = PUBLISHED_AT();
    hn.publish(stories.length, at);
    return await scratch(async (dataDir, index) => {
      const store = openSqliteSourceStore(path.join(dataDir, "sources.sqlite"));
      const enricher = await createIngestEnricher(dataDir, embedder);
      try {
        await store.add({
          name: "hn",
          kind: "hackernews",
          settings: throughputSettings(hn.url, stories, via, Math.floor(at / 1000)),
          intervalSeconds: 10,
        });
        const c0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        const [summary] = await runScheduler(
          {
            store,
            connectors: CONNECTORS,
            write: { index, embedder, enricher },
            owner: "bench",
            leaseMs: 600_000,
            politeness: { minIntervalMs: 0, maxRequests: 10 * stories.length },
            maxItemsPerPoll: 4 * stories.length,
            log: quiet,
          },
          new AbortController().signal,
          { once: true },
        );
        await index.close();
        if (summary?.error !== undefined) throw new Error(`sync poll failed: ${summary.error.message}`);
        return { perS: summary!.inserted / (msSince(t0) / 1000), cpuS: cpuSince(c0) };
      } finally {
        await enricher.close();
        await store.close();
      }
    }, embedder);
  } finally {
    await hn.close();
  }
}

/** The throughput poll's connector alone: every request it makes, nothing embedded or written. */
async function fetchRound(stories: Post[]): Promise<{ wallS: number; cpuS: number; requests: number }> {
  const hn = await startFakeHn(stories);
  try {
    const at = PUBLISHED_AT();
    hn.publish(stories.length, at);
    const signal = new AbortController().signal;
    const http = createPoliteClient({ minIntervalMs: 0, maxRequests: 10 * stories.length }, signal);
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let posts = 0;
    for await (const batch of CONNECTORS.hackernews.poll({
      settings: throughputSettings(hn.url, stories, "walk", Math.floor(at / 1000)),
      cursor: undefined,
      http,
      maxItems: 4 * stories.length,
      signal,
      log: quiet,
      now: Date.now,
    }))
      posts += batch.posts.length;
    if (posts !== stories.length) throw new Error(`the walk found ${posts} of ${stories.length} stories`);
    return { wallS: msSince(t0) / 1000, cpuS: cpuSince(c0), requests: http.requests };
  } finally {
    await hn.close();
  }
}

async function lagRun(stories: Post[], embedder: Embedder, o: SyncBenchOptions): Promise<SyncBenchResult["lag"]> {
  const hn = await startFakeHn(stories);
  try {
    return await scratch(async (dataDir, index) => {
      const store = openSqliteSourceStore(path.join(dataDir, "sources.sqlite"));
      const enricher = await createIngestEnricher(dataDir, embedder);
      const stop = new AbortController();
      try {
        await store.add({
          name: "hn",
          kind: "hackernews",
          settings: CONNECTORS.hackernews.validate({ firebaseUrl: hn.url, refreshUpdates: false }),
          intervalSeconds: o.intervalS,
        });
        const pollMs: number[] = [];
        const running = runScheduler(
          {
            store,
            connectors: CONNECTORS,
            write: { index, embedder, enricher },
            owner: "bench",
            leaseMs: 120_000,
            politeness: {},
            maxItemsPerPoll: 1000,
            log: quiet,
          },
          stop.signal,
          {
            tickMs: 200,
            onPoll: (summary) => {
              if (summary.inserted > 0) pollMs.push(summary.ms);
            },
          },
        );
        // The first poll fixes the starting point.
        while (hn.count(/maxitem/) === 0) await sleep(50);
        const published = new Map<string, number>();
        const lags: number[] = [];
        const end = Date.now() + o.lagSeconds * 1000;
        let nextPublish = Date.now();
        while (Date.now() < end || (published.size > 0 && Date.now() < end + 2 * o.intervalS * 1000)) {
          if (Date.now() >= nextPublish && Date.now() < end) {
            const [item] = hn.publish(1);
            if (item !== undefined) published.set(`hackernews:${item.id}`, Date.now());
            nextPublish += o.publishEveryMs;
          }
          const ids = [...published.keys()];
          if (ids.length > 0)
            for (const p of await index.get(ids)) {
              lags.push(Date.now() - published.get(p.id)!);
              published.delete(p.id);
            }
          await sleep(100);
        }
        stop.abort(new Error("bench done"));
        await running.catch(() => undefined);
        return {
          intervalS: o.intervalS,
          publishEveryMs: o.publishEveryMs,
          published: lags.length + published.size,
          found: lags.length,
          p50Ms: percentile(lags, 50),
          p95Ms: percentile(lags, 95),
          maxMs: Math.max(...lags),
          pollMs: median(pollMs),
        };
      } finally {
        stop.abort(new Error("bench done"));
        await enricher.close();
        await store.close();
      }
    }, embedder);
  } finally {
    await hn.close();
  }
}

/** Runs both measurements. */
export async function benchSync(o: SyncBenchOptions, log: (line: string) => void): Promise<SyncBenchResult> {
  const embedder = await startUseEmbedder(2);
  try {
    const stories = await hnCorpusPosts(o.posts + 2000);
    const slice = stories.slice(0, o.posts);
    // Warm-up: loads the model's kernels before anything is timed.
    await ingestRound(stories.slice(0, 64), embedder);
    const ingest: Round[] = [];
    const sync: Round[] = [];
    const backfilled: Round[] = [];
    const fetched: Awaited<ReturnType<typeof fetchRound>>[] = [];
    for (let r = 0; r < o.rounds; r += 1) {
      ingest.push(await ingestRound(slice, embedder));
      sync.push(await syncRound(slice, embedder, "walk"));
      backfilled.push(await syncRound(slice, embedder, "backfill"));
      fetched.push(await fetchRound(slice));
      log(
        `sync round ${r + 1}/${o.rounds}: ingest ${fixed(ingest[r]!.perS)} posts/s (${fixed(ingest[r]!.cpuS)} s CPU), walk ${fixed(sync[r]!.perS)} posts/s (${fixed(sync[r]!.cpuS)} s CPU), backfill ${fixed(backfilled[r]!.perS)} posts/s (${fixed(backfilled[r]!.cpuS)} s CPU), walk's fetch alone ${fixed(fetched[r]!.wallS)} s (${fixed(fetched[r]!.cpuS)} s CPU)`,
      );
    }
    const ingestPerS = ingest.map((x) => x.perS);
    const syncPerS = sync.map((x) => x.perS);
    const lag = await lagRun(stories.slice(o.posts), embedder, o);
    log(
      `sync lag (poll every ${o.intervalS} s): p50 ${fixed(lag.p50Ms / 1000)} s, p95 ${fixed(lag.p95Ms / 1000)} s over ${lag.found}/${lag.published}`,
    );
    return {
      posts: o.posts,
      rounds: o.rounds,
      batchSize: DEFAULT_BATCH_SIZE,
      ingestPerS,
      syncPerS,
      ingestCpuS: ingest.map((x) => x.cpuS),
      syncCpuS: sync.map((x) => x.cpuS),
      fetchOnly: {
        wallS: fetched.map((x) => x.wallS),
        cpuS: fetched.map((x) => x.cpuS),
        requests: fetched[0]?.requests ?? 0,
      },
      medianIngest: median(ingestPerS),
      medianSync: median(syncPerS),
      medianRatio: median(syncPerS.map((s, i) => s / ingestPerS[i]!)),
      backfill: {
        perS: backfilled.map((x) => x.perS),
        cpuS: backfilled.map((x) => x.cpuS),
        medianPerS: median(backfilled.map((x) => x.perS)),
        medianRatio: median(backfilled.map((b, i) => b.perS / ingestPerS[i]!)),
      },
      lag,
    };
  } finally {
    await embedder.close();
  }
}

/** The report section. */
export function syncSection(s: { data: unknown; machine: MachineInfo }): string {
  const d = s.data as SyncBenchResult;
  const list = (xs: readonly number[] | undefined): string => (xs ?? []).map((x) => fixed(x)).join(", ");
  const lines = [
    `Connector: Hacker News against its local fake, ${d.posts} corpus stories, each followed by a comment item, read by the Firebase item walk (two requests a story) and by the Algolia backfill (one request per 100 stories); ${d.rounds} rounds, embedded index, load at start ${loadText(s.machine)}. The fake runs on loopback with the politeness spacing off for the throughput rounds.`,
    "",
    "| path | posts/s per round | median posts/s | CPU s per round |",
    "| --- | --- | --- | --- |",
    `| plain \`ingest\` (API items as JSON Lines${d.batchSize === undefined ? "" : `, batch ${d.batchSize}`}) | ${list(d.ingestPerS)} | ${fixed(d.medianIngest)} | ${list(d.ingestCpuS)} |`,
    `| one sync poll from the fake, Firebase item walk | ${list(d.syncPerS)} | ${fixed(d.medianSync)} | ${list(d.syncCpuS)} |`,
  ];
  if (d.backfill !== undefined)
    lines.push(
      `| one sync poll from the fake, Algolia backfill (100 stories a page) | ${list(d.backfill.perS)} | ${fixed(d.backfill.medianPerS)} | ${list(d.backfill.cpuS)} |`,
    );
  if (d.fetchOnly !== undefined)
    lines.push(
      `| the walk's requests alone (${d.fetchOnly.requests} requests, no embedding) | wall s: ${list(d.fetchOnly.wallS)} | | ${list(d.fetchOnly.cpuS)} |`,
    );
  lines.push(
    "",
    `Sync / ingest, median of the rounds' ratios: item walk **${fixed(100 * d.medianRatio)}%**${d.backfill === undefined ? "" : `, Algolia backfill **${fixed(100 * d.backfill.medianRatio)}%**`} (goal >= 90%).`,
    "",
  );
  if (d.medianRatio < 0.9 && d.syncCpuS !== undefined && d.ingestCpuS !== undefined && d.fetchOnly !== undefined)
    lines.push(
      `Where the walk's difference goes: its poll spends a median ${fixed(median(d.syncCpuS) - median(d.ingestCpuS))} s more CPU than \`ingest\` on the same posts, of which its ${d.fetchOnly.requests} requests alone take ${fixed(Math.min(...d.fetchOnly.cpuS))}-${fixed(Math.max(...d.fetchOnly.cpuS))} s (client and the in-process fake); on two cores that CPU comes out of the encoder's time. Reasons and next steps: [decision 0011](decisions/0011-sync-throughput.md).`,
      "",
    );
  const lag = d.lag;
  const p50Goal = lag.pollMs === undefined ? undefined : lag.intervalS * 1000 + lag.pollMs;
  lines.push(
    `Lag from a story's publication on the fake to the index returning it (default politeness, poll interval ${lag.intervalS} s, one story every ${fixed(lag.publishEveryMs / 1000)} s, ${lag.found} of ${lag.published} found): p50 ${fixed(lag.p50Ms / 1000)} s, p95 ${fixed(lag.p95Ms / 1000)} s, max ${fixed(lag.maxMs / 1000)} s.` +
      (lag.pollMs === undefined
        ? ""
        : ` Median poll that wrote posts: ${fixed(lag.pollMs / 1000)} s. Goals: p95 <= 60 s (${lag.p95Ms <= 60_000 ? "met" : "not met"}), p50 <= interval + one batch = ${fixed(p50Goal! / 1000)} s (${lag.p50Ms <= p50Goal! ? "met" : "not met"}).`),
  );
  return lines.join("\n");
}
