/**
 * Scaling benchmark: 10k, 100k and 1M posts per backend, replicated from the real corpora
 * (scaling-replica.ts: the kept embedded index's posts and stored vectors, new ids, jittered
 * vectors, varied texts; nothing re-embedded). For each size and backend:
 *
 * 1. load a fresh store: LanceDB in BENCH_DIR/scaling-lancedb, Weaviate in a fresh server
 *    (BENCH_DIR/scaling-weaviate) per size, so disk and memory belong to that size alone;
 *    - "adapter": SearchIndex.upsert in chunks, the way `threadsight ingest` writes (LanceDB:
 *      mergeInsert plus the adapter's own index upkeep, the final optimise at close; Weaviate:
 *      insertMany, HNSW built during the import);
 *    - "bulk" (LanceDB's default at every size): the table is created by the adapter, rows
 *      appended with table.add, then the same index set the adapter builds (LanceMaintenance)
 *      is created once over all rows. The adapter path (SCALING_LANCE_PATH=adapter, up to 100k)
 *      re-optimises the growing table every 5% of its rows (the share then; 20% since); on this
 *      shared 2-core machine it could not finish 100k within the session, so the curve uses one
 *      path for every size;
 * 2. prune old table versions (LanceDB) and measure the data directory on disk;
 * 3. run the query child (scaling-child.ts): SearchCore SemanticSearch and VectorSearch
 *    in-process, query embeddings cached, p50/p95, and its RSS; for Weaviate, also the server's RSS.
 *
 * Sizes come from SCALING_SIZES (default 10000,100000,1000000 for LanceDB and 10000,100000 for
 * Weaviate, whose 1M HNSW import on 2 cores is projected rather than run unless asked for),
 * queries per pass from SCALING_QUERIES (100), timed passes from SCALING_ROUNDS (3), the load
 * time cap per size from SCALING_MAX_LOAD_MIN (45). Each size is saved as soon as it is measured.
 * SCALING_KEEP=1 keeps each size's store (LanceDB: BENCH_DIR/scaling-lancedb-<size>; Weaviate:
 * the server directory BENCH_DIR/scaling-weaviate-<size> and its client directory beside it),
 * with a topic model (keptStoreTopics) written beside it, for scaling-insights.ts to measure
 * ListTrends and FindLeads over; the replicas then carry their source post's topic.
 * Before querying a Weaviate size, the part waits for its server to settle (settled(): idle and
 * past the idle-memtable flush), at most SCALING_SETTLE_MAX_MIN (15) minutes; SCALING_RESUME=1
 * also re-queries a kept Weaviate store (requeryKeptWeaviate) and a kept LanceDB store, whose
 * vector index is first retrained when the adapter's writer would retrain it (requeryKeptLance).
 * Otherwise SCALING_RESUME=1 (LanceDB bulk) picks up BENCH_DIR/scaling-lancedb when it already holds
 * every row of the size (a run stopped while indexing) and goes on with the indexes (completedLoadSeconds).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statfsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as lancedb from "@lancedb/lancedb";
import { USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import {
  DEFAULT_OPTIMIZE_EVERY_ROWS,
  DEFAULT_VECTOR_INDEX_MIN_ROWS,
  LanceMaintenance,
  VECTOR_INDEX_TYPE,
  vectorIndexTrainedRows,
} from "../../src/index/lancedb/maintenance.js";
import { rowsTable } from "../../src/index/lancedb/rows.js";
import { POSTS_TABLE, postsSchema, toRow } from "../../src/index/lancedb/schema.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import type { IndexedPost } from "../../src/model/post.js";
import { buildTopicModel } from "../../src/topics/build.js";
import { saveTopicModel, topicModelPath } from "../../src/topics/model-file.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import { table } from "../eval/format.js";
import type { Backend, BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import type { InsightsResult } from "./insights.js";
import { insightsSection } from "./insights.js";
import type { MachineInfo } from "./machine.js";
import { loadText, machineInfo } from "./machine.js";
import { procCpuMs } from "./proc-cpu.js";
import type { StoredSection } from "./results-store.js";
import { BENCH_DIR, loadResults } from "./results-store.js";
import type { ChildReport } from "./scaling-child.js";
import { readSourcePosts, replicaChunk } from "./scaling-replica.js";
import { loadBenchQueries } from "./search-queries.js";
import { count, fixed, msSince } from "./stats.js";
import type { BenchWeaviate } from "./weaviate-server.js";
import { startBenchWeaviate } from "./weaviate-server.js";

/** One backend at one size. */
export interface ScalingRow {
  backend: Backend;
  size: number;
  /** Distinct real posts replicated, and the embedded index version they were read from. */
  sourcePosts: number;
  loadPath: "adapter" | "bulk";
  /** Posts written; below `size` only when the load hit its time cap (then nothing was queried). */
  loaded: number;
  /** Seconds writing the posts (adapter: including its index upkeep along the way). */
  loadS: number;
  /**
   * Seconds after the writes: building or finishing indexes (bulk: all of them; adapter LanceDB:
   * the optimise at close) plus LanceDB's final optimise that compacts and prunes old versions.
   */
  indexS: number;
  /** Posts the store reports after loading. */
  count: number;
  /** Vector index as the engine reports it. */
  vectorIndex: string;
  diskBytes: number;
  /** True when the load was done by an earlier run that stopped while indexing (SCALING_RESUME=1). */
  resumed?: boolean;
  /** Seconds a kept LanceDB store took to retrain its vector index as the adapter's writer would (SCALING_RESUME=1). */
  retrainedS?: number;
  child?: ChildReport;
  /** Weaviate server RSS after the queries (MiB). */
  serverRssMiB?: number;
  stopped?: string;
}

const LANCE_CHUNK = 5000;
const WEAVIATE_CHUNK = 1000;
const BULK_CHUNK = 20_000;
const MIB = 2 ** 20;
const HERE = path.dirname(fileURLToPath(import.meta.url));

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

function sizesFor(backend: Backend): number[] {
  const raw = process.env.SCALING_SIZES;
  if (raw === undefined || raw === "") return backend === "lancedb" ? [10_000, 100_000, 1_000_000] : [10_000, 100_000];
  return raw.split(",").map((s) => {
    const t = s.trim();
    if (!/^\d+$/.test(t) || Number(t) < 1)
      throw new Error(`SCALING_SIZES takes positive whole numbers separated by commas, got "${raw}"`);
    return Number(t);
  });
}

/** Apparent size of every file under `dir`. */
function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += dirBytes(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

function rssOfPid(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : undefined;
}

/** Runs the query child against `env`; rejects with its stderr tail when it fails. */
function queryChild(
  env: Record<string, string>,
  queries: string[],
  rounds: number,
  serverPid?: number,
): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(HERE, "scaling-child.ts"), JSON.stringify({ env, queries, rounds, serverPid })],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err = (err + c).slice(-4000)));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as ChildReport);
      else reject(new Error(`scaling child exited with ${code}: ${err.slice(-1500)}`));
    });
  });
}

/** Writes positions [0, size) through the adapter, stopping at `deadline`; returns posts written. */
async function loadViaAdapter(
  index: SearchIndex,
  sources: Parameters<typeof replicaChunk>[0],
  size: number,
  chunk: number,
  deadline: number,
  log: (s: string) => void,
  label: string,
): Promise<number> {
  let lastLog = Date.now();
  for (let from = 0; from < size; from += chunk) {
    if (Date.now() > deadline) return from;
    const res = await index.upsert(replicaChunk(sources, from, Math.min(size, from + chunk)));
    if (res.failed.length > 0)
      throw new Error(
        `${label}: ${res.failed.length} posts refused, e.g. ${res.failed[0]!.id}: ${res.failed[0]!.reason}`,
      );
    if (Date.now() - lastLog > 30_000) {
      lastLog = Date.now();
      log(`${label}: ${from + chunk} of ${size} written`);
    }
  }
  return size;
}

async function lanceVectorIndex(dir: string): Promise<string> {
  const db = await lancedb.connect(dir);
  const t = await db.openTable(POSTS_TABLE);
  try {
    const s = await t.indexStats("vector_idx");
    return s === undefined
      ? "none (exact scan)"
      : `${s.indexType} ${s.distanceType ?? ""}, ${count(s.numIndexedRows)} rows indexed, ${count(s.numUnindexedRows)} not`;
  } finally {
    t.close();
    db.close();
  }
}

/** Drops every table version but the current one, so the disk figure is the live data. */
async function lancePrune(dir: string): Promise<void> {
  const db = await lancedb.connect(dir);
  const t = await db.openTable(POSTS_TABLE);
  try {
    await t.optimize({ cleanupOlderThan: new Date(), deleteUnverified: true });
  } finally {
    t.close();
    db.close();
  }
}

/**
 * For SCALING_RESUME=1: when `dir` holds a bulk load that added all `size` rows (a run stopped
 * after its load, e.g. by the bench's time limit while indexing), the seconds that load took,
 * read from the table's version times (last empty version to the first with every row);
 * undefined when there is no such load, and the size is then loaded afresh.
 */
async function completedLoadSeconds(dir: string, size: number): Promise<number | undefined> {
  if (!existsSync(dir)) return undefined;
  const db = await lancedb.connect(dir);
  const t = await db.openTable(POSTS_TABLE);
  try {
    if ((await t.countRows()) !== size) return undefined;
    let start: number | undefined;
    for (const v of (await t.listVersions()).sort((a, b) => a.version - b.version)) {
      await t.checkout(v.version);
      const rows = await t.countRows();
      if (rows === 0) start = v.timestamp.getTime();
      else if (rows === size) return start === undefined ? undefined : (v.timestamp.getTime() - start) / 1000;
    }
    return undefined;
  } finally {
    t.close();
    db.close();
  }
}

async function lanceSize(
  sources: Parameters<typeof replicaChunk>[0],
  size: number,
  loadPath: "adapter" | "bulk",
  deadline: number,
  log: (s: string) => void,
): Promise<Omit<ScalingRow, "child" | "sourcePosts">> {
  const dataDir = path.join(BENCH_DIR, "scaling-lancedb");
  const dims = sources[0]!.vector.length;
  const resumedLoadS =
    loadPath === "bulk" && process.env.SCALING_RESUME === "1"
      ? await completedLoadSeconds(LanceDbIndex.dirFor(dataDir), size)
      : undefined;
  if (resumedLoadS !== undefined)
    log(
      `scaling lancedb ${count(size)}: resuming a completed load of ${fixed(resumedLoadS, 0)} s (from the table's version times)`,
    );
  else rmSync(dataDir, { recursive: true, force: true });
  const target: BackendTarget = { backend: "lancedb", dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } };
  const index = await indexFor(target);
  if (resumedLoadS === undefined) await index.open(USE_MODEL_ID, dims);
  let loaded = resumedLoadS === undefined ? 0 : size;
  let loadS = resumedLoadS ?? 0;
  let indexS = 0;
  const t0 = process.hrtime.bigint();
  if (loadPath === "adapter") {
    try {
      loaded = await loadViaAdapter(index, sources, size, LANCE_CHUNK, deadline, log, `scaling lancedb ${count(size)}`);
      loadS = msSince(t0) / 1000;
    } finally {
      const t1 = process.hrtime.bigint();
      await index.close();
      indexS = msSince(t1) / 1000;
    }
  } else {
    if (resumedLoadS === undefined) await index.close();
    const db = await lancedb.connect(LanceDbIndex.dirFor(dataDir));
    const t = await db.openTable(POSTS_TABLE);
    // Rows go in as the adapter builds them (toRow + rowsTable), in the schema open() created.
    const schema = postsSchema(USE_MODEL_ID, dims);
    try {
      let lastLog = Date.now();
      for (let from = loaded; from < size && Date.now() <= deadline; from += BULK_CHUNK) {
        await t.add(rowsTable(replicaChunk(sources, from, Math.min(size, from + BULK_CHUNK)).map(toRow), schema));
        loaded = Math.min(size, from + BULK_CHUNK);
        if (Date.now() - lastLog > 30_000) {
          lastLog = Date.now();
          log(`scaling lancedb ${count(size)} (bulk): ${count(loaded)} rows added`);
        }
      }
      if (resumedLoadS === undefined) loadS = msSince(t0) / 1000;
      const t1 = process.hrtime.bigint();
      if (loaded === size) {
        // The adapter's own index set and settings, built once over all rows. Vector-index
        // training runs in the maintenance's background task, so wait for it before closing.
        const maintenance = new LanceMaintenance(t, {
          vectorIndexMinRows: DEFAULT_VECTOR_INDEX_MIN_ROWS,
          optimizeEveryRows: DEFAULT_OPTIMIZE_EVERY_ROWS,
        });
        await maintenance.afterWrite(0);
        await maintenance.idle();
        if (maintenance.lastError) throw maintenance.lastError;
      }
      indexS = msSince(t1) / 1000;
    } finally {
      t.close();
      db.close();
    }
  }
  const dir = LanceDbIndex.dirFor(dataDir);
  const t2 = process.hrtime.bigint();
  await lancePrune(dir);
  indexS += msSince(t2) / 1000;
  const db = await lancedb.connect(dir);
  const t = await db.openTable(POSTS_TABLE);
  const n = await t.countRows();
  t.close();
  db.close();
  return {
    backend: "lancedb",
    size,
    loadPath,
    loaded,
    loadS,
    indexS,
    count: n,
    vectorIndex: await lanceVectorIndex(dir),
    diskBytes: dirBytes(dir),
    ...(resumedLoadS === undefined ? {} : { resumed: true }),
  };
}

/** Where SCALING_KEEP=1 leaves the LanceDB store of `size` posts. */
export function keptLanceDir(size: number): string {
  return path.join(BENCH_DIR, `scaling-lancedb-${size}`);
}

/** Topics and k-means fitting sample of a kept store's topic model (as insights-prepare.ts uses). */
const KEPT_TOPICS_K = 50;
const KEPT_FIT_SAMPLE = 8_000;

/**
 * The source posts tagged with a topic model built over them, for a kept store: ListTrends
 * needs topic ids, the kept embedded index has none, and re-tagging 1M stored rows afterwards
 * would rewrite the whole table. Every copy of a post then carries the post's topic.
 */
function keptStoreTopics(
  sources: readonly IndexedPost[],
  log: (s: string) => void,
): { posts: IndexedPost[]; model: TopicModel } {
  const t0 = process.hrtime.bigint();
  const { model, topicIds } = buildTopicModel(
    sources.map((p) => ({ id: p.id, vector: p.vector, title: p.title, content: p.content.slice(0, 2000) })),
    { k: KEPT_TOPICS_K, fitSample: KEPT_FIT_SAMPLE },
  );
  log(
    `scaling: ${model.topics.length} topics built over ${count(sources.length)} source posts in ${fixed(msSince(t0) / 1000, 0)} s`,
  );
  return { posts: sources.map((p, i) => ({ ...p, topicId: topicIds[i]! })), model };
}

/** One backend at one size, measured; the store is deleted afterwards (disk is shared) unless `keep` holds the topic model to keep it with. */
async function measureSize(
  backend: Backend,
  sources: Parameters<typeof replicaChunk>[0],
  size: number,
  queries: string[],
  rounds: number,
  log: (s: string) => void,
  keep?: TopicModel,
): Promise<ScalingRow> {
  const deadline = Date.now() + envInt("SCALING_MAX_LOAD_MIN", 45) * 60_000;
  if (backend === "lancedb") {
    if (process.env.SCALING_RESUME === "1" && existsSync(keptLanceDir(size)))
      return requeryKeptLance(sources.length, size, queries, rounds, log);
    const loadPath = process.env.SCALING_LANCE_PATH === "adapter" && size <= 100_000 ? "adapter" : "bulk";
    const row: ScalingRow = {
      ...(await lanceSize(sources, size, loadPath, deadline, log)),
      sourcePosts: sources.length,
    };
    try {
      if (row.loaded < size)
        return {
          ...row,
          stopped: `load stopped at the time cap after ${count(row.loaded)} posts in ${fixed(row.loadS, 0)} s`,
        };
      log(
        `scaling lancedb ${count(size)}: loaded in ${fixed(row.loadS, 0)} + ${fixed(row.indexS, 0)} s, ${fixed(row.diskBytes / MIB, 0)} MiB; querying`,
      );
      return {
        ...row,
        child: await queryChild({ THREADSIGHT_DATA_DIR: path.join(BENCH_DIR, "scaling-lancedb") }, queries, rounds),
      };
    } finally {
      const dir = path.join(BENCH_DIR, "scaling-lancedb");
      if (keep && row.loaded === size) {
        await saveTopicModel(topicModelPath(dir), keep);
        rmSync(keptLanceDir(size), { recursive: true, force: true });
        renameSync(dir, keptLanceDir(size));
        log(`scaling lancedb ${count(size)}: store kept in ${keptLanceDir(size)}`);
      } else {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  const kept = keptWeaviateName(size);
  if (process.env.SCALING_RESUME === "1" && existsSync(path.join(BENCH_DIR, kept)))
    return requeryKeptWeaviate(sources.length, size, queries, rounds, log);
  const name = "scaling-weaviate";
  rmSync(path.join(BENCH_DIR, name), { recursive: true, force: true });
  const server: BenchWeaviate = await startBenchWeaviate(name);
  const dataDir = path.join(BENCH_DIR, `${name}-client`);
  let complete = false;
  try {
    const env = {
      THREADSIGHT_DATA_DIR: dataDir,
      WEAVIATE_URL: server.httpUrl,
      WEAVIATE_GRPC_URL: server.grpcUrl,
      WEAVIATE_COLLECTION: SCALING_COLLECTION,
    };
    const index = await indexFor({ backend: "weaviate", dataDir, env, collection: SCALING_COLLECTION });
    await index.open(USE_MODEL_ID, sources[0]!.vector.length);
    const t0 = process.hrtime.bigint();
    let loaded = 0;
    let n = 0;
    try {
      loaded = await loadViaAdapter(
        index,
        sources,
        size,
        WEAVIATE_CHUNK,
        deadline,
        log,
        `scaling weaviate ${count(size)}`,
      );
      n = await index.count();
    } finally {
      await index.close();
    }
    const loadS = msSince(t0) / 1000;
    const row: ScalingRow = {
      backend: "weaviate",
      size,
      sourcePosts: sources.length,
      loadPath: "adapter",
      loaded,
      loadS,
      indexS: 0,
      count: n,
      vectorIndex: "HNSW cosine (built during the import)",
      diskBytes: dirBytes(server.dataDir!),
    };
    if (loaded < size)
      return { ...row, stopped: `load stopped at the time cap after ${count(loaded)} posts in ${fixed(loadS, 0)} s` };
    complete = n === size;
    log(
      `scaling weaviate ${count(size)}: loaded in ${fixed(loadS, 0)} s, ${fixed(row.diskBytes / MIB, 0)} MiB; waiting for the server to settle`,
    );
    row.indexS = await settled(server.pid!, log);
    const child = await queryChild(env, queries, rounds, server.pid);
    return { ...row, child, serverRssMiB: rssOfPid(server.pid), diskBytes: dirBytes(server.dataDir!) };
  } finally {
    await server.stop();
    if (keep && complete) {
      // The server directory moves whole (data and ports.json: Raft remembers its address), and
      // the client directory with the topic model the trend store reads.
      await saveTopicModel(topicModelPath(dataDir), keep);
      for (const [from, to] of [
        [path.join(BENCH_DIR, name), keptWeaviateName(size)],
        [dataDir, `${keptWeaviateName(size)}-client`],
      ] as const) {
        rmSync(path.join(BENCH_DIR, to), { recursive: true, force: true });
        renameSync(from, path.join(BENCH_DIR, to));
      }
      log(
        `scaling weaviate ${count(size)}: store kept as ${keptWeaviateName(size)} (server) and ${keptWeaviateName(size)}-client`,
      );
    } else {
      rmSync(path.join(BENCH_DIR, name), { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

/** The Weaviate collection the scaling replicas go into. */
export const SCALING_COLLECTION = "ScalePosts";

/** Longer than Weaviate's idle-memtable flush delay (60 s by default). */
const SETTLE_MIN_MS = 75_000;

/**
 * Waits until the Weaviate server is idle (under 5% of a core over 5 s) and at least
 * SETTLE_MIN_MS have passed, at most SCALING_SETTLE_MAX_MIN (15) minutes, and returns the seconds
 * waited. Right after an import the newest writes sit in memtables, which Weaviate flushes to
 * disk segments once they have been idle for 60 s (PERSISTENCE_FLUSH_IDLE_MEMTABLES_AFTER); BM25
 * over a large memtable is far slower than over segments: at 1M posts SemanticSearch took
 * 129 ms at p50 queried at once and 31 ms once flushed, at 10k ~190 ms (~230 ms of CPU a call).
 */
async function settled(pid: number, log: (s: string) => void): Promise<number> {
  const t0 = process.hrtime.bigint();
  const limitMs = envInt("SCALING_SETTLE_MAX_MIN", 15) * 60_000;
  for (;;) {
    const before = procCpuMs(pid);
    await new Promise((r) => setTimeout(r, 5_000));
    const busy = (procCpuMs(pid) - before) / 5_000;
    if ((busy < 0.05 && msSince(t0) >= SETTLE_MIN_MS) || msSince(t0) > limitMs) {
      log(
        `scaling weaviate: server ${busy < 0.05 ? "idle" : `still ${fixed(100 * busy, 0)}% busy (stopped waiting)`} after ${fixed(msSince(t0) / 1000, 0)} s`,
      );
      return msSince(t0) / 1000;
    }
  }
}

/**
 * SCALING_RESUME=1 with a kept Weaviate store of `size` (SCALING_KEEP=1 on an earlier run): its
 * server is started again, left to settle, and queried; the load time is the earlier run's,
 * read from the results store. The store stays kept.
 */
async function requeryKeptWeaviate(
  sourcePosts: number,
  size: number,
  queries: string[],
  rounds: number,
  log: (s: string) => void,
): Promise<ScalingRow> {
  // Saved under "scaling:weaviate:<size>" plus the run's tag (":full").
  const earlier = Object.entries(loadResults()).find(([k]) => k.startsWith(`scaling:weaviate:${size}:`))?.[1].data as
    | ScalingRow
    | undefined;
  if (earlier === undefined)
    throw new Error(`SCALING_RESUME=1: no stored scaling:weaviate:${size} row to take the load time from`);
  const server = await startBenchWeaviate(keptWeaviateName(size));
  const dataDir = path.join(BENCH_DIR, `${keptWeaviateName(size)}-client`);
  try {
    const env = {
      THREADSIGHT_DATA_DIR: dataDir,
      WEAVIATE_URL: server.httpUrl,
      WEAVIATE_GRPC_URL: server.grpcUrl,
      WEAVIATE_COLLECTION: SCALING_COLLECTION,
    };
    const index = await indexFor({ backend: "weaviate", dataDir, env, collection: SCALING_COLLECTION });
    await index.open(USE_MODEL_ID, 512);
    const n = await index.count().finally(() => index.close());
    log(
      `scaling weaviate ${count(size)}: kept store with ${count(n)} posts started again; waiting for the server to settle`,
    );
    const indexS = await settled(server.pid!, log);
    const child = await queryChild(env, queries, rounds, server.pid);
    return {
      ...earlier,
      sourcePosts,
      count: n,
      indexS,
      resumed: true,
      child,
      serverRssMiB: rssOfPid(server.pid),
      diskBytes: dirBytes(server.dataDir!),
    };
  } finally {
    await server.stop();
  }
}

/**
 * SCALING_RESUME=1 with a kept LanceDB store of `size` (SCALING_KEEP=1 on an earlier run): its
 * indexes are brought up to date as the adapter's next writer would (LanceMaintenance: a vector
 * index of a type the adapter no longer trains, or trained for far fewer rows, is retrained), and
 * the store is queried. Load and index times are the
 * earlier run's, read from the results store; the retraining time is reported beside them.
 */
async function requeryKeptLance(
  sourcePosts: number,
  size: number,
  queries: string[],
  rounds: number,
  log: (s: string) => void,
): Promise<ScalingRow> {
  const earlier = Object.entries(loadResults()).find(([k]) => k.startsWith(`scaling:lancedb:${size}:`))?.[1].data as
    | ScalingRow
    | undefined;
  if (earlier === undefined)
    throw new Error(`SCALING_RESUME=1: no stored scaling:lancedb:${size} row to take the load time from`);
  const dataDir = keptLanceDir(size);
  const dir = LanceDbIndex.dirFor(dataDir);
  const db = await lancedb.connect(dir);
  const t = await db.openTable(POSTS_TABLE);
  const t0 = process.hrtime.bigint();
  let retrain = false;
  try {
    // The writer retrains an index of another type, and one trained for far fewer rows (or
    // recording none: stores kept by earlier versions); either leaves a new trained-at record.
    const trainedBefore =
      (await t.indexStats("vector_idx"))?.indexType === VECTOR_INDEX_TYPE ? await vectorIndexTrainedRows(t) : -1;
    const maintenance = new LanceMaintenance(t, {
      vectorIndexMinRows: DEFAULT_VECTOR_INDEX_MIN_ROWS,
      optimizeEveryRows: DEFAULT_OPTIMIZE_EVERY_ROWS,
    });
    await maintenance.afterWrite(0);
    await maintenance.idle();
    if (maintenance.lastError) throw maintenance.lastError;
    retrain = (await vectorIndexTrainedRows(t)) !== trainedBefore;
  } finally {
    t.close();
    db.close();
  }
  await lancePrune(dir);
  const seconds = msSince(t0) / 1000;
  const vectorIndex = await lanceVectorIndex(dir);
  log(
    `scaling lancedb ${count(size)}: kept store, vector index ${vectorIndex}${retrain ? ` (retrained in ${fixed(seconds, 0)} s)` : ""}; querying`,
  );
  const child = await queryChild({ THREADSIGHT_DATA_DIR: dataDir }, queries, rounds);
  return {
    ...earlier,
    sourcePosts,
    vectorIndex,
    diskBytes: dirBytes(dir),
    resumed: true,
    ...(retrain ? { retrainedS: seconds } : {}),
    child,
  };
}

/** Server directory name (under BENCH_DIR) where SCALING_KEEP=1 leaves the Weaviate store of `size` posts. */
export function keptWeaviateName(size: number): string {
  return `scaling-weaviate-${size}`;
}

/**
 * The kept replicated store of `size` posts as a benchmark target (run.ts --replica): LanceDB's
 * kept directory, or the collection in the kept Weaviate server `weaviate` (started from
 * {@link keptWeaviateName}) with its client directory.
 */
export function keptReplicaTarget(backend: Backend, size: number, weaviate?: BenchWeaviate): BackendTarget {
  if (backend === "lancedb") {
    const dataDir = keptLanceDir(size);
    if (!existsSync(dataDir)) throw new Error(`no kept store ${dataDir}: run the scaling part with SCALING_KEEP=1`);
    return { backend, dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } };
  }
  if (weaviate === undefined) throw new Error("weaviate target needs a running Weaviate");
  const dataDir = path.join(BENCH_DIR, `${keptWeaviateName(size)}-client`);
  if (!existsSync(dataDir)) throw new Error(`no kept store ${dataDir}: run the scaling part with SCALING_KEEP=1`);
  return {
    backend,
    dataDir,
    collection: SCALING_COLLECTION,
    env: {
      THREADSIGHT_DATA_DIR: dataDir,
      WEAVIATE_URL: weaviate.httpUrl,
      WEAVIATE_GRPC_URL: weaviate.grpcUrl,
      WEAVIATE_COLLECTION: SCALING_COLLECTION,
    },
  };
}

/** Free bytes on the file system holding BENCH_DIR. */
function freeBytes(): number {
  const s = statfsSync(BENCH_DIR);
  return s.bavail * s.bsize;
}

/**
 * Measures every size for each backend, smallest first, saving each as it is done through
 * `save(key, section)` (key "scaling:<backend>:<size>").
 */
export async function benchScaling(
  backends: readonly Backend[],
  log: (s: string) => void,
  save: (key: string, section: StoredSection<ScalingRow>) => void,
): Promise<void> {
  const queries = loadBenchQueries().slice(0, envInt("SCALING_QUERIES", 100));
  const rounds = envInt("SCALING_ROUNDS", 3);
  const source = path.join(BENCH_DIR, "lancedb-full");
  const { posts: read, version } = await readSourcePosts(source);
  if (read.length === 0) throw new Error(`no posts in ${source}: run the ingest part first`);
  log(`scaling: ${count(read.length)} real posts read from ${source} (table version ${version})`);
  const kept = process.env.SCALING_KEEP === "1" ? keptStoreTopics(read, log) : undefined;
  const sources = kept?.posts ?? read;
  for (const backend of backends) {
    for (const size of sizesFor(backend)) {
      // Vectors alone are 2 KiB a post; rows, indexes and transient versions take about as much again, twice over.
      const need = size * 8 * 1024;
      if (freeBytes() < need + 10 * 2 ** 30) {
        log(`scaling ${backend} ${count(size)}: skipped, ${fixed(freeBytes() / 2 ** 30, 1)} GiB free`);
        continue;
      }
      const machine: MachineInfo = machineInfo();
      const t0 = Date.now();
      log(`scaling ${backend} ${count(size)}: start; load ${loadText(machine)}`);
      const row = await measureSize(backend, sources, size, queries, rounds, log, kept?.model);
      save(`scaling:${backend}:${size}`, { machine, durationS: (Date.now() - t0) / 1000, data: row });
      const c = row.child;
      log(
        `scaling ${backend} ${count(size)}: ${row.stopped ?? `semantic p50 ${fixed(c?.semanticP50 ?? NaN)} ms, vector p50 ${fixed(c?.vectorP50 ?? NaN)} ms`}`,
      );
    }
  }
}

/** CPU per call of a row, when it covers the engine (Weaviate: only with its server's CPU). */
function cpu(r: ScalingRow, method: "semanticCpuMs" | "vectorCpuMs"): number | undefined {
  const c = r.child;
  if (c === undefined || (r.backend === "weaviate" && c.cpuIncludesServer !== true)) return undefined;
  return c[method];
}

const mib = (b: number | undefined): string => (b === undefined ? "-" : fixed(b / MIB, 0));
const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || !(b > 0) ? "-" : `${fixed(a / b, 2)}x`;

/** Memory the index costs: the Weaviate server's RSS, or what the query process grew by when LanceDB opened and searched. */
function indexMemMiB(r: ScalingRow): number | undefined {
  if (r.backend === "weaviate") return r.serverRssMiB;
  return r.child === undefined ? undefined : r.child.rssMiB - r.child.rssBaseMiB;
}

/** The docs/BENCHMARKS.md section for every stored scaling row. */
export function renderScaling(all: readonly [string, StoredSection<ScalingRow>][]): string[] {
  // "scaling:insights:" rows are scaling-insights.ts's ListTrends/FindLeads over a kept replica.
  const insights = all.filter(([k]) => k.startsWith(INSIGHTS_PREFIX)) as unknown as [
    string,
    StoredSection<ScalingInsights>,
  ][];
  const sections = all.filter(([k]) => !k.startsWith(INSIGHTS_PREFIX));
  const tail = insights.length === 0 ? [] : renderScalingInsights(insights);
  if (sections.length === 0)
    return ["Not measured yet (`npm run bench -- --only scaling --backend lancedb|weaviate|all`).", "", ...tail];
  const rows = [...sections].sort(
    ([, a], [, b]) => a.data.backend.localeCompare(b.data.backend) || a.data.size - b.data.size,
  );
  const body = rows.map(([, s]) => {
    const r = s.data;
    const c = r.child;
    return [
      r.backend,
      count(r.size),
      r.retrainedS !== undefined
        ? `${r.loadPath} (kept; vector index retrained in ${fixed(r.retrainedS, 0)} s)`
        : r.resumed
          ? `${r.loadPath} (resumed)`
          : r.loadPath,
      r.stopped ? `${fixed(r.loadS, 0)} (stopped)` : fixed(r.loadS, 0),
      fixed(r.indexS, 0),
      fixed(r.loaded / Math.max(r.loadS + r.indexS, 1e-9), 0),
      count(r.count),
      mib(r.diskBytes),
      c ? fixed(c.rssMiB, 0) : "-",
      r.backend === "weaviate" ? fixed(r.serverRssMiB ?? NaN, 0) : "-",
      fixed(indexMemMiB(r) ?? NaN, 0),
      c ? fixed(c.semanticP50) : "-",
      c ? fixed(c.semanticP95) : "-",
      c ? fixed(c.vectorP50) : "-",
      c ? fixed(c.vectorP95) : "-",
      fixed(cpu(r, "semanticCpuMs") ?? NaN),
      fixed(cpu(r, "vectorCpuMs") ?? NaN),
      r.vectorIndex,
      `${s.machine.cpu}, ${s.machine.cores} cores`,
      s.machine.at.slice(0, 10),
      `${s.machine.at.slice(11, 16)} UTC, load ${s.machine.load[0].toFixed(1)}${c ? `, ${c.queries} queries x ${c.rounds} passes` : ""}`,
    ];
  });
  const ratios: string[][] = [];
  for (const backend of ["lancedb", "weaviate"] as const) {
    const by = new Map(
      rows.filter(([, s]) => s.data.backend === backend && s.data.child).map(([, s]) => [s.data.size, s.data]),
    );
    for (const [small, big] of [
      [10_000, 100_000],
      [100_000, 1_000_000],
    ] as const) {
      const a = by.get(small);
      const b = by.get(big);
      if (!a || !b) continue;
      ratios.push([
        backend,
        `${count(big)} / ${count(small)}`,
        "10x",
        ratio(b.child!.semanticP50, a.child!.semanticP50),
        ratio(b.child!.vectorP50, a.child!.vectorP50),
        ratio(cpu(b, "semanticCpuMs"), cpu(a, "semanticCpuMs")),
        ratio(cpu(b, "vectorCpuMs"), cpu(a, "vectorCpuMs")),
        ratio(b.diskBytes, a.diskBytes),
        ratio(indexMemMiB(b), indexMemMiB(a)),
        ratio(b.loadS + b.indexS, a.loadS + a.indexS),
      ]);
    }
  }
  // The source grows while its own ingest is still running, so sizes measured at different times may start from different counts.
  const srcs = rows.map(([, s]) => s.data.sourcePosts);
  const src =
    Math.min(...srcs) === Math.max(...srcs)
      ? count(srcs[0]!)
      : `${count(Math.min(...srcs))}-${count(Math.max(...srcs))} (it grew between sizes)`;
  const out = [
    `Synthetic sizes **replicated from the real corpora**: the ${src} posts of the kept embedded index repeated to each size; every copy after the first gets a new id, loses every 7th word of its title and content and has its vector jittered (cosine ~0.98 to the original), and nothing is embedded again. LanceDB is loaded in bulk (table.add in chunks of ${count(BULK_CHUNK)}) and then given the adapter's own index set, the "vector index" column naming the one it trained; Weaviate is loaded through \`SearchIndex.upsert\` (${count(WEAVIATE_CHUNK)} per call) into a fresh single-node server per size.`,
    "",
    'Latency: SearchCore in a separate query process (test/bench/scaling-child.ts) with held-out questions and cached query embeddings, SemanticSearch and VectorSearch (limit 10) interleaved; p50/p95 are medians over passes. CPU ms/call is the CPU the call cost the query process (and the Weaviate server), the steadier measure on a shared machine. "index s" is the time from the last write until the store is ready to query; memory is the query process\'s RSS growth (LanceDB) or the server\'s RSS (Weaviate). How the load paths were chosen, what "(resumed)" and "kept; vector index retrained" mean, and which rows predate later changes of the search path: [decision 0014](decisions/0014-scaling-on-replicated-corpora.md).',
    "",
    table(
      [
        "backend",
        "posts",
        "load path",
        "load s",
        "index s",
        "posts/s",
        "count",
        "disk MiB",
        "query process RSS MiB",
        "server RSS MiB",
        "index memory MiB",
        "semantic p50 ms",
        "semantic p95 ms",
        "vector p50 ms",
        "vector p95 ms",
        "semantic CPU ms/call",
        "vector CPU ms/call",
        "vector index",
        "machine",
        "date (UTC)",
        "run",
      ],
      body,
    ),
    "",
  ];
  if (ratios.length > 0) {
    out.push(
      "Growth per 10x posts (sub-linear when well under 10x):",
      "",
      table(
        [
          "backend",
          "sizes",
          "posts",
          "semantic p50",
          "vector p50",
          "semantic CPU/call",
          "vector CPU/call",
          "disk",
          "index memory",
          "load + index time",
        ],
        ratios,
      ),
      "",
    );
  }
  const w100 = rows.find(([, s]) => s.data.backend === "weaviate" && s.data.size === 100_000 && s.data.child)?.[1].data;
  if (w100 && !rows.some(([, s]) => s.data.backend === "weaviate" && s.data.size === 1_000_000)) {
    out.push(
      `Weaviate at 1M was not run on this shared 2-core machine. Projection from the 100k row (not a measurement): the HNSW import cost per post grows with log(n), so loading 1M would take at least 10x the 100k load, about ${fixed((10 * w100.loadS) / 60, 0)} min or more; the server would hold at least 1M x 512 float32 = 1.9 GiB of vectors in memory plus the graph (100k took ${fixed(w100.serverRssMiB ?? NaN, 0)} MiB RSS in all). Where an import's time goes (client, HNSW, inverted index, per variant CPU): \`nice -n 10 node --import tsx test/bench/scaling-import-probe.ts 15000\`.`,
      "",
    );
  }
  const missing = (["lancedb", "weaviate"] as const).flatMap((b) =>
    [10_000, 100_000, 1_000_000]
      .filter((n) => !rows.some(([, s]) => s.data.backend === b && s.data.size === n && s.data.child))
      .map((n) => `${b} ${count(n)}`),
  );
  if (missing.length > 0)
    out.push(
      `Not measured yet (no completed run stored): ${missing.join(", ")}. Run them with \`SCALING_SIZES=... npm run bench -- --only scaling --backend ...\`; each needs the machine for its load (100k LanceDB took ${fixed((rows.find(([, s]) => s.data.backend === "lancedb" && s.data.size === 100_000)?.[1].data.loadS ?? NaN) / 60, 0)} min to add and ${fixed((rows.find(([, s]) => s.data.backend === "lancedb" && s.data.size === 100_000)?.[1].data.indexS ?? NaN) / 60, 0)} min to index at the load shown).`,
      "",
    );
  const stopped = rows.filter(([, s]) => s.data.stopped);
  for (const [, s] of stopped)
    out.push(`${s.data.backend} ${count(s.data.size)}: ${s.data.stopped} (${loadText(s.machine)}); not queried.`, "");
  return [...out, ...tail];
}

const INSIGHTS_PREFIX = "scaling:insights:";

/** A "scaling:insights:" row (scaling-insights.ts): the insights result plus how its rollups were made. */
export interface ScalingInsights extends InsightsResult {
  size: number;
  /** Seconds rebuilding the replica's per-(topic, day) rollups (0 when they were already fresh). */
  rollupBuildS: number;
}

/** ListTrends and FindLeads over a kept replica (scaling-insights.ts), in the insights part's table form. */
function renderScalingInsights(sections: readonly [string, StoredSection<ScalingInsights>][]): string[] {
  return [
    "### ListTrends and FindLeads over the replicated store",
    "",
    "The insights measurement (see Insights above: the service in its own process, REST and gRPC) over the store kept from the scaling load (`SCALING_KEEP=1`, then `SCALING_INSIGHTS_BACKEND=lancedb|weaviate node --import tsx test/bench/scaling-insights.ts`). " +
      "The posts are the replicas described above, not real posts: each copy keeps its source post's date and topic (a topic model of 50 topics, k-means fitted on 8,000 of the source posts, assigned to every source post before replication), " +
      "so the one-month and one-year windows are the same days as in the ~93k insights store and hold about size / source posts times its posts. Dates were not shifted: shifting copies by whole years would leave the newest year as sparse as the source's. " +
      "The replica's per-(topic, day) rollups were built once before the calls (time given per row).",
    "",
    ...sections.flatMap(([, s]) => [
      `Replica of ${count(s.data.size)} posts; rollups built in ${fixed(s.data.rollupBuildS, 0)} s.`,
      "",
      insightsSection(s),
      "",
    ]),
  ];
}
