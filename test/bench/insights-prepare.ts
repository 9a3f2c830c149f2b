/**
 * The data the insights part measures, kept apart from the other parts' indexes so it never
 * writes to them: a copy of the kept embedded index (`insights-lancedb-<tag>`) with a topic model
 * built over it and its trend rollups, and a Weaviate filled from that copy (copy-index.ts, no
 * re-embedding) on its own server directory (`weaviate-insights`). An ingest may still be writing
 * the source index while it is copied; the copy then goes back to its newest version whose files
 * all arrived (LanceDB versions are immutable, only the newest may be torn).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { loadConfig } from "../../src/config.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { openTrendStore } from "../../src/index/open-trend-store.js";
import { connectWeaviate } from "../../src/index/weaviate/connect.js";
import { scanPages } from "../../src/index/weaviate/cursor.js";
import { topicModelPath } from "../../src/topics/model-file.js";
import { rebuildTopics } from "../../src/topics/rebuild.js";
import type { BackendTarget } from "./backends.js";
import { targetFor } from "./backends.js";
import type { CopyResult } from "./copy-index.js";
import { copyIndex } from "./copy-index.js";
import { BENCH_DIR } from "./results-store.js";
import type { BenchWeaviate } from "./weaviate-server.js";

/** Topics and k-means fitting sample of the benchmark's topic model (see lanceInsightsTarget). */
const TOPICS_K = 50;
const FIT_SAMPLE = 8_000;
/** Versions tried, newest first, when the copied newest version is torn. */
const VERSIONS_TRIED = 40;

/** The embedded copy the insights part measures (made, topic-modelled and rolled up on first use). */
export async function lanceInsightsTarget(tag: string, log: (s: string) => void): Promise<BackendTarget> {
  const dataDir = path.join(BENCH_DIR, `insights-lancedb-${tag}`);
  const target: BackendTarget = { backend: "lancedb", dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } };
  const dir = LanceDbIndex.dirFor(dataDir);
  if (!existsSync(dir)) {
    const source = LanceDbIndex.dirFor(targetFor("lancedb", tag).dataDir);
    log(`insights: copying ${source} to ${dir}`);
    mkdirSync(dataDir, { recursive: true });
    cpSync(source, dir, { recursive: true });
    rmSync(path.join(dir, "threadsight-writer.lock"), { force: true });
    await settleOnReadableVersion(dir, log);
  }
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const store = await openTrendStore(config);
  try {
    if (!existsSync(topicModelPath(dataDir))) {
      log(`insights: building topics over ${dataDir} (threadsight topics rebuild)`);
      // Fewer topics and a smaller fitting sample than the CLI's defaults: on this shared,
      // heavily loaded 2-core machine the default clustering did not finish in 25 min. The
      // trends path measured here does not depend on how the clusters were found.
      const r = await rebuildTopics(store, {
        file: topicModelPath(dataDir),
        k: TOPICS_K,
        fitSample: FIT_SAMPLE,
        onProgress: (m) => log(`insights: topics: ${m}`),
      });
      log(`insights: ${r.model.topics.length} topics over ${r.posts} posts`);
    } else if (!(await store.rollupsFresh())) {
      log("insights: rollups missing or short; rebuilding them");
      await store.rebuildRollups();
    }
  } finally {
    await store.close();
  }
  return target;
}

/** Restores the newest version of the copied posts table whose every file is present. */
async function settleOnReadableVersion(dir: string, log: (s: string) => void): Promise<void> {
  const db = await lancedb.connect(dir);
  const table = await db.openTable(POSTS_TABLE);
  try {
    const versions = (await table.listVersions()).map((v) => v.version).sort((a, b) => b - a);
    for (const v of versions.slice(0, VERSIONS_TRIED)) {
      try {
        await table.checkout(v);
        await table.query().select(["id", "vector", "title", "content", "topic_id"]).toArray();
        if (v !== versions[0]) {
          await table.restore();
          log(`insights: newest copied version was torn by a concurrent write; restored version ${v}`);
        }
        return;
      } catch {
        // A file of this version had not been copied; try the one before.
      }
    }
    throw new Error(`insights: no readable version among the newest ${VERSIONS_TRIED} of ${dir}`);
  } finally {
    table.close();
    db.close();
  }
}

/** Fills the Weaviate target from the embedded copy without touching topics (to overlap with a topic build). */
export async function fillWeaviate(
  from: BackendTarget,
  tag: string,
  weaviate: BenchWeaviate,
  log: (s: string) => void,
): Promise<CopyResult> {
  return copyIndex(from, targetFor("weaviate", tag, weaviate), log);
}

/**
 * The Weaviate target on `weaviate` filled from the embedded copy (copied once; rollups kept by
 * the copy's upserts, RollupMaintainingIndex). A later run finds the TOTAL cell counting every
 * post of the embedded copy and the topics marker current, and prepares nothing.
 */
export async function weaviateInsightsTarget(
  from: BackendTarget,
  tag: string,
  weaviate: BenchWeaviate,
  log: (s: string) => void,
): Promise<{ target: BackendTarget; copy?: CopyResult }> {
  const target = targetFor("weaviate", tag, weaviate);
  const lanceCount = await countLance(from.dataDir);
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const store = await openTrendStore(config);
  let copy: CopyResult | undefined;
  try {
    const fresh = await store.rollupsFresh();
    if (fresh?.count !== lanceCount) {
      log(
        `insights: Weaviate rollups count ${fresh?.count ?? "nothing"}, the embedded copy ${lanceCount} posts; copying`,
      );
      copy = await copyIndex(from, target, log);
      if (!(await store.rollupsFresh())) {
        const t0 = Date.now();
        await store.rebuildRollups();
        log(`insights: rollups rebuilt after the copy in ${seconds(t0)}`);
      }
    }
  } finally {
    await store.close();
  }
  const t0 = Date.now();
  if (await syncTopics(from, target, log))
    log(`insights: Weaviate topics synced with the embedded copy in ${seconds(t0)}`);
  return copy ? { target, copy } : { target };
}

/**
 * Gives the Weaviate copy the embedded copy's topic ids and model file when they differ from
 * what it was last given (the copy may have been filled before the topics were built): one
 * re-tag of the posts whose id differs, then a rollup rebuild if any was re-tagged or the
 * rollups are short. True when it had to look (the marker was missing or stale). The model's
 * version and creation time, recorded next to the target's data, say what it holds.
 */
async function syncTopics(from: BackendTarget, target: BackendTarget, log: (s: string) => void): Promise<boolean> {
  const model = readFileSync(topicModelPath(from.dataDir), "utf8");
  const stamp = JSON.stringify(
    (({ version, createdAt }) => ({ version, createdAt }))(JSON.parse(model) as { version: number; createdAt: string }),
  );
  const marker = path.join(target.dataDir, "insights-topics.json");
  if (existsSync(marker) && readFileSync(marker, "utf8") === stamp) return false;
  const db = await lancedb.connect(LanceDbIndex.dirFor(from.dataDir));
  const table = await db.openTable(POSTS_TABLE);
  const assignments = (await table.query().select(["id", "topic_id"]).toArray()).map((r: Record<string, unknown>) => ({
    id: String(r.id),
    topicId: String(r.topic_id),
  }));
  table.close();
  db.close();
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const held = await weaviateTopics(config);
  const changed = assignments.filter((a) => held.get(a.id) !== a.topicId);
  const store = await openTrendStore(config);
  try {
    log(
      `insights: re-tagging ${changed.length} of ${assignments.length} Weaviate posts with the embedded copy's topics`,
    );
    let t0 = Date.now();
    const written = await store.setTopics(changed);
    log(`insights: re-tagged ${written} in ${seconds(t0)}`);
    // Re-tagging bypasses the rollups (a PATCH per post); with nothing re-tagged the copy's
    // upserts kept them current, and a fresh TOTAL says so.
    if (written > 0 || !(await store.rollupsFresh())) {
      t0 = Date.now();
      await store.rebuildRollups();
      log(`insights: rollups rebuilt in ${seconds(t0)}`);
    }
  } finally {
    await store.close();
  }
  // The service labels topics from the model file of its data directory.
  mkdirSync(path.dirname(topicModelPath(target.dataDir)), { recursive: true });
  writeFileSync(topicModelPath(target.dataDir), model);
  writeFileSync(marker, stamp);
  return true;
}

/** postId -> topicId of every post in the configured Weaviate collection. */
async function weaviateTopics(config: ReturnType<typeof loadConfig>): Promise<Map<string, string>> {
  const client = await connectWeaviate({
    httpUrl: config.weaviateUrl!,
    ...(config.weaviateGrpcUrl ? { grpcUrl: config.weaviateGrpcUrl } : {}),
  });
  const out = new Map<string, string>();
  try {
    for await (const page of scanPages(client.collections.use(config.weaviateCollection), {
      returnProperties: ["postId", "topicId"],
      pageSize: 5_000,
    })) {
      for (const o of page) {
        const p = o.properties as Record<string, unknown>;
        out.set(String(p.postId), String(p.topicId ?? ""));
      }
    }
  } finally {
    await client.close();
  }
  return out;
}

function seconds(t0: number): string {
  return `${((Date.now() - t0) / 1000).toFixed(1)} s`;
}

async function countLance(dataDir: string): Promise<number> {
  const db = await lancedb.connect(LanceDbIndex.dirFor(dataDir));
  const table = await db.openTable(POSTS_TABLE);
  try {
    return await table.countRows();
  } finally {
    table.close();
    db.close();
  }
}
