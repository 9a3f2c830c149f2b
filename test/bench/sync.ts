/**
 * Live-sync benchmark, two measurements over the local Hacker News API (test/fakes/), loopback
 * only, bounded in posts and time:
 *
 * 1. Throughput: the same corpus stories written by plain `ingest` (their API items as JSON
 *    Lines through `ingestFile`) and by one scheduler poll walking them from the fake (stories
 *    with a comment each, so twice as many items are fetched as are posts), each into a fresh
 *    embedded index, timed to the index's close. Rounds alternate, so load from other
 *    processes hits both alike. The fake is on loopback, so the politeness spacing is off
 *    (`minIntervalMs: 0`): the rate is the pipeline's, not the one a real API is asked for.
 * 2. Lag: with the scheduler running on a poll interval, a story is published on the fake every
 *    `publishEveryMs`; the lag is from its publication to the index returning it by id.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Embedder } from "../../src/enrich/embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFile } from "../../src/ingest/pipeline.js";
import type { Post } from "../../src/model/post.js";
import { CONNECTORS } from "../../src/sources/connectors.js";
import { openSqliteSourceStore } from "../../src/sources/store/sqlite-source-store.js";
import { runScheduler } from "../../src/sources/sync/scheduler.js";
import { hnCorpusPosts } from "../fakes/corpus-posts.js";
import { startFakeHn } from "../fakes/hackernews-server.js";
import { indexFor } from "./backends.js";
import { fixed, median, msSince, percentile } from "./stats.js";

/** What the sync benchmark stores. */
export interface SyncBenchResult {
  posts: number;
  rounds: number;
  ingestPerS: number[];
  syncPerS: number[];
  medianIngest: number;
  medianSync: number;
  /** Median over rounds of sync / ingest. */
  medianRatio: number;
  lag: {
    intervalS: number;
    publishEveryMs: number;
    published: number;
    found: number;
    p50Ms: number;
    p95Ms: number;
    maxMs: number;
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

async function ingestRound(stories: Post[], embedder: Embedder): Promise<number> {
  const hn = await startFakeHn(stories);
  try {
    const items = hn.publish(stories.length, Date.now() - 3_600_000);
    return await scratch(async (dataDir, index) => {
      const file = path.join(dataDir, "hn-items.jsonl");
      writeFileSync(file, `${items.map((i) => JSON.stringify(i)).join("\n")}\n`);
      const enricher = await createIngestEnricher(dataDir, embedder);
      try {
        const t0 = process.hrtime.bigint();
        const r = await ingestFile(
          file,
          { batchSize: 64 },
          { index, embedder, enricher, checkpoints: new CheckpointStore(dataDir, "bench"), log: quiet },
        );
        await index.close();
        return r.stats.inserted / (msSince(t0) / 1000);
      } finally {
        await enricher.close();
      }
    }, embedder);
  } finally {
    await hn.close();
  }
}

async function syncRound(stories: Post[], embedder: Embedder): Promise<number> {
  const hn = await startFakeHn(stories);
  try {
    hn.publish(stories.length, Date.now() - 3_600_000);
    return await scratch(async (dataDir, index) => {
      const store = openSqliteSourceStore(path.join(dataDir, "sources.sqlite"));
      const enricher = await createIngestEnricher(dataDir, embedder);
      try {
        await store.add({
          name: "hn",
          kind: "hackernews",
          settings: CONNECTORS.hackernews.validate({
            firebaseUrl: hn.url,
            backlog: 2 * stories.length,
            refreshUpdates: false,
          }),
          intervalSeconds: 10,
        });
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
        return summary!.inserted / (msSince(t0) / 1000);
      } finally {
        await enricher.close();
        await store.close();
      }
    }, embedder);
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
          { tickMs: 200 },
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
    const ingestPerS: number[] = [];
    const syncPerS: number[] = [];
    for (let r = 0; r < o.rounds; r += 1) {
      ingestPerS.push(await ingestRound(slice, embedder));
      syncPerS.push(await syncRound(slice, embedder));
      log(
        `sync round ${r + 1}/${o.rounds}: ingest ${fixed(ingestPerS[r]!)} posts/s, sync ${fixed(syncPerS[r]!)} posts/s`,
      );
    }
    const lag = await lagRun(stories.slice(o.posts), embedder, o);
    log(
      `sync lag (poll every ${o.intervalS} s): p50 ${fixed(lag.p50Ms / 1000)} s, p95 ${fixed(lag.p95Ms / 1000)} s over ${lag.found}/${lag.published}`,
    );
    return {
      posts: o.posts,
      rounds: o.rounds,
      ingestPerS,
      syncPerS,
      medianIngest: median(ingestPerS),
      medianSync: median(syncPerS),
      medianRatio: median(syncPerS.map((s, i) => s / ingestPerS[i]!)),
      lag,
    };
  } finally {
    await embedder.close();
  }
}

/** The report section. */
export function syncSection(s: { data: unknown }): string {
  const d = s.data as SyncBenchResult;
  return [
    `Throughput (${d.posts} Hacker News corpus stories, ${d.rounds} rounds, embedded index, loopback fake with politeness spacing off):`,
    "",
    "| path | posts/s per round | median posts/s |",
    "| --- | --- | --- |",
    `| plain \`ingest\` (API items as JSON Lines) | ${d.ingestPerS.map((x) => fixed(x)).join(", ")} | ${fixed(d.medianIngest)} |`,
    `| one sync poll from the fake | ${d.syncPerS.map((x) => fixed(x)).join(", ")} | ${fixed(d.medianSync)} |`,
    "",
    `Sync / ingest, median of the rounds' ratios: **${fixed(100 * d.medianRatio)}%** (goal >= 90%).`,
    "",
    `Lag from a story's publication on the fake to the index returning it (poll interval ${d.lag.intervalS} s, one story every ${fixed(d.lag.publishEveryMs / 1000)} s, ${d.lag.found} of ${d.lag.published} found): p50 ${fixed(d.lag.p50Ms / 1000)} s, p95 ${fixed(d.lag.p95Ms / 1000)} s, max ${fixed(d.lag.maxMs / 1000)} s.`,
  ].join("\n");
}
