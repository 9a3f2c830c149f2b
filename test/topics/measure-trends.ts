/**
 * Measures ListTrends latency on real posts: both corpora (Hacker News 2015-2016 and reddit top
 * 2013) read by the ingest readers, embedded with the cheap hashed bag-of-words vectors of the
 * index tests (aggregation cost does not depend on the vectors), clustered into topics, written
 * through each backend's SearchIndex adapter, then TrendsCore.list is timed for a one-month and
 * a one-year window. Prints the machine, data size and medians.
 *
 *   node --import tsx test/topics/measure-trends.ts [lancedb] [weaviate] [--runs N] [--hn-only]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TrendsParams } from "../../src/core/trends.js";
import { TrendsCore } from "../../src/core/trends.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { LanceDbTrendStore } from "../../src/index/lancedb/trends.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { WeaviateTrendStore } from "../../src/index/weaviate/trends.js";
import { WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import type { IndexedPost } from "../../src/model/post.js";
import { buildTopicModel } from "../../src/topics/build.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import type { TrendStore } from "../../src/topics/trend-store.js";
import { asIndexed, readTrendCorpora } from "../eval/trends.js";
import { startWeaviate } from "../harness/weaviate.js";
import { DIMS, embed, MODEL } from "../index/synthetic.js";

const WINDOWS: Record<string, TrendsParams> = {
  "one month (2016-08)": { startDate: "2016-08-01", endDate: "2016-08-31", limit: 10 },
  "one year (2015-09-15..2016-09-14)": { startDate: "2015-09-15", endDate: "2016-09-14", limit: 10 },
  "one year (2012-08-21..2013-08-20, reddit)": { startDate: "2012-08-21", endDate: "2013-08-20", limit: 10 },
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

async function load(index: SearchIndex, posts: IndexedPost[]): Promise<number> {
  const started = Date.now();
  await index.open(MODEL, DIMS);
  for (let i = 0; i < posts.length; i += 1000) {
    const res = await index.upsert(posts.slice(i, i + 1000));
    if (res.failed.length > 0) throw new Error(`upsert failed: ${res.failed[0]!.reason}`);
  }
  return Date.now() - started;
}

async function time(store: TrendStore, model: TopicModel, runs: number): Promise<string[]> {
  const core = new TrendsCore({ store, topics: async () => model });
  const signal = new AbortController().signal;
  const lines: string[] = [];
  for (const [label, params] of Object.entries(WINDOWS)) {
    const ms: number[] = [];
    let trends = 0;
    let posts = 0;
    for (let r = 0; r < runs + 1; r++) {
      const started = performance.now();
      const out = await core.list(params, signal);
      if (r > 0) ms.push(performance.now() - started);
      trends = out.trends.length;
      posts = out.trends.reduce((s, t) => s + t.postCount, 0);
    }
    lines.push(
      `  ${label}: p50 ${median(ms).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)}, max ${Math.max(...ms).toFixed(1)} (${runs} runs; ${trends} trends, ${posts} posts in them)`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const runsAt = args.indexOf("--runs");
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 9;
  const backends = args.filter((a) => a === "lancedb" || a === "weaviate");
  const chosen = backends.length > 0 ? backends : ["lancedb", "weaviate"];
  const corpora = await readTrendCorpora();
  const hackernews = corpora.hackernews;
  const reddit = args.includes("--hn-only") ? [] : corpora.reddit;
  const raw = [...hackernews, ...reddit];
  const vectors = raw.map((p) => embed(`${p.title} ${p.content.slice(0, 1000)}`));
  const built = buildTopicModel(
    raw.map((p, i) => ({ id: p.id, vector: vectors[i]!, title: p.title, content: p.content })),
    { seed: 42 },
  );
  const posts = raw.map((p, i) => ({ ...asIndexed(p, vectors[i]!), topicId: built.topicIds[i]! }));
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  console.log(`machine: ${cpu}, ${os.cpus().length} cores; Node ${process.version}`);
  console.log(
    `data: ${posts.length} real posts (${hackernews.length} HN, ${reddit.length} reddit), ${built.model.topics.length} topics, ${DIMS}-d hashed vectors`,
  );
  for (const backend of chosen) {
    const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-measure-trends-"));
    let stop = async () => {};
    try {
      let index: SearchIndex;
      let store: TrendStore;
      if (backend === "lancedb") {
        const dir = LanceDbIndex.dirFor(root);
        index = new LanceDbIndex({ dir });
        store = new LanceDbTrendStore({ dir });
      } else {
        const server = await startWeaviate();
        stop = () => server.stop();
        const conn = {
          httpUrl: server.httpUrl,
          grpcUrl: server.grpcUrl,
          collection: "MeasureTrends",
          consistency: "ONE" as const,
        };
        index = new WeaviateIndex({ ...conn, replicationFactor: 1, shards: 1, fusion: "relativeScore" });
        store = new WeaviateTrendStore(conn);
      }
      console.log(`${backend}: loading...`);
      const loadMs = await load(index, posts);
      if (index instanceof LanceDbIndex) await index.optimize();
      await store.open();
      console.log(`${backend}: loaded in ${(loadMs / 1000).toFixed(1)} s`);
      for (const line of await time(store, built.model, runs)) console.log(line);
      await store.close();
      await index.close();
    } finally {
      await stop();
      rmSync(root, { recursive: true, force: true });
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
