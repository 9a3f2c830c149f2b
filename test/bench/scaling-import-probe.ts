/**
 * Where a Weaviate import spends its time (the scaling benchmark's Weaviate load ran at ~44
 * posts/s): a fresh server, replicated posts as scaling.ts writes them, and per variant the
 * wall time, this process's CPU and the server's CPU (/proc) of
 *  - "adapter": SearchIndex.upsert (existence lookup + insertMany, gRPC BatchObjects);
 *  - "lookup": the adapter's existence lookup alone (fetchObjects byId containsAny);
 *  - "insertMany": collection.data.insertMany alone, on the adapter's collection;
 *  - "hnsw-cheap" / "no-text-index" / "flat": insertMany on collections differing from the
 *    adapter's in one setting, to tell HNSW graph building from inverted-index work;
 *  - "parallel": insertMany on the adapter's definition with PROBE_INFLIGHT (default 2) calls in
 *    flight, to tell a server that waits from one that is busy.
 * Prints one line per variant. Run:
 *   nice -n 10 node --import tsx test/bench/scaling-import-probe.ts [posts] [chunk] [variant,...]
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import type { CollectionConfigCreate } from "weaviate-client";
import { configure } from "weaviate-client";
import { USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { fromRow, POST_COLUMNS, POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { connectWeaviate } from "../../src/index/weaviate/connect.js";
import {
  collectionDefinition,
  POST_PROPERTIES,
  postUuid,
  toProperties,
  WEAVIATE_LAYOUT,
} from "../../src/index/weaviate/schema.js";
import type { IndexedPost } from "../../src/model/post.js";
import { indexFor } from "./backends.js";
import { procCpuMs } from "./proc-cpu.js";
import { BENCH_DIR } from "./results-store.js";
import { replicaChunk } from "./scaling-replica.js";
import { toVector } from "./stored-vectors.js";
import { startBenchWeaviate } from "./weaviate-server.js";

const posts = Number(process.argv[2] ?? 3000);
const chunk = Number(process.argv[3] ?? 1000);
/** Variants to run (comma-separated names), default all. */
const only = process.argv[4]?.split(",");
const wanted = (name: string): boolean => only === undefined || only.includes(name);

async function readSome(n: number): Promise<IndexedPost[]> {
  const db = await lancedb.connect(LanceDbIndex.dirFor(path.join(BENCH_DIR, "lancedb-full")));
  const t = await db.openTable(POSTS_TABLE);
  try {
    const rows = await t
      .query()
      .select([...POST_COLUMNS, "vector"])
      .limit(n)
      .toArray();
    return (rows as Record<string, unknown>[]).map((r) => ({ ...fromRow(r), vector: toVector(r.vector) }));
  } finally {
    t.close();
    db.close();
  }
}

const sources = await readSome(Math.min(posts, 20_000));
const server = await startBenchWeaviate("scaling-probe");
const pid = server.pid!;
const line = (name: string, wallMs: number, ownMs: number, srvMs: number): void =>
  console.log(
    `${name.padEnd(14)} ${posts} posts, chunk ${chunk}: ${(wallMs / 1000).toFixed(1)} s wall = ${((posts * 1000) / wallMs).toFixed(0)} posts/s; client CPU ${(ownMs / 1000).toFixed(1)} s, server CPU ${(srvMs / 1000).toFixed(1)} s; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );

async function timed(name: string, work: () => Promise<void>): Promise<void> {
  const c0 = process.cpuUsage();
  const s0 = procCpuMs(pid);
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  line(name, wall, (c.user + c.system) / 1000, procCpuMs(pid) - s0);
}

try {
  const env = {
    THREADSIGHT_DATA_DIR: path.join(BENCH_DIR, "scaling-probe-client"),
    WEAVIATE_URL: server.httpUrl,
    WEAVIATE_GRPC_URL: server.grpcUrl,
    WEAVIATE_COLLECTION: "ProbeAdapter",
  };
  const index = await indexFor({
    backend: "weaviate",
    dataDir: env.THREADSIGHT_DATA_DIR,
    env,
    collection: "ProbeAdapter",
  });
  await index.open(USE_MODEL_ID, sources[0]!.vector.length);
  if (wanted("adapter"))
    await timed("adapter", async () => {
      for (let from = 0; from < posts; from += chunk)
        await index.upsert(replicaChunk(sources, from, Math.min(posts, from + chunk)));
    });
  await index.close();

  const client = await connectWeaviate({ httpUrl: server.httpUrl, grpcUrl: server.grpcUrl });
  const meta = { embeddingModel: USE_MODEL_ID, dimensions: sources[0]!.vector.length, layout: WEAVIATE_LAYOUT };
  const base = (name: string): CollectionConfigCreate =>
    collectionDefinition(name, meta, { replicationFactor: 1, shards: 1 });
  const adapterColl = client.collections.use("ProbeAdapter");
  if (wanted("lookup"))
    await timed("lookup", async () => {
      for (let from = 0; from < posts; from += chunk) {
        const ids = replicaChunk(sources, from, Math.min(posts, from + chunk)).map((p) => postUuid(p.id));
        await adapterColl.query.fetchObjects({
          filters: adapterColl.filter.byId().containsAny(ids),
          limit: ids.length,
          returnProperties: ["postId"],
        });
      }
    });
  const variants: [string, CollectionConfigCreate][] = [
    ["insertMany", base("ProbeInsert")],
    [
      "hnsw-cheap",
      {
        ...base("ProbeCheap"),
        vectorizers: configure.vectors.selfProvided({
          vectorIndexConfig: configure.vectorIndex.hnsw({
            distanceMetric: "cosine",
            efConstruction: 64,
            maxConnections: 16,
          }),
        }),
      },
    ],
    [
      "flat",
      {
        ...base("ProbeFlat"),
        vectorizers: configure.vectors.selfProvided({
          vectorIndexConfig: configure.vectorIndex.flat({ distanceMetric: "cosine" }),
        }),
      },
    ],
    [
      "no-text-index",
      {
        ...base("ProbeNoText"),
        properties: POST_PROPERTIES.map((p) => ({
          ...p,
          indexSearchable: false,
          indexFilterable: false,
          indexRangeFilters: false,
        })),
      },
    ],
  ];
  if (wanted("parallel")) {
    const inflight = Number(process.env.PROBE_INFLIGHT ?? 2);
    await client.collections.create(base("ProbeParallel"));
    const coll = client.collections.use("ProbeParallel");
    await timed(`parallel x${inflight}`, async () => {
      let next = 0;
      const lane = async (): Promise<void> => {
        for (let from = next; from < posts; from = next) {
          next += chunk;
          const res = await coll.data.insertMany(
            replicaChunk(sources, from, Math.min(posts, from + chunk)).map((p) => ({
              id: postUuid(p.id),
              properties: toProperties(p),
              vectors: Array.from(p.vector),
            })),
          );
          if (res.hasErrors) throw new Error(`parallel: ${Object.values(res.errors)[0]?.message}`);
        }
      };
      await Promise.all(Array.from({ length: inflight }, lane));
    });
  }
  for (const [name, def] of variants.filter(([n]) => wanted(n))) {
    await client.collections.create(def);
    const coll = client.collections.use(def.name);
    await timed(name, async () => {
      for (let from = 0; from < posts; from += chunk) {
        const res = await coll.data.insertMany(
          replicaChunk(sources, from, Math.min(posts, from + chunk)).map((p) => ({
            id: postUuid(p.id),
            properties: toProperties(p),
            vectors: Array.from(p.vector),
          })),
        );
        if (res.hasErrors) throw new Error(`${name}: ${Object.values(res.errors)[0]?.message}`);
      }
    });
  }
  await client.close();
} finally {
  await server.stop();
  rmSync(path.join(BENCH_DIR, "scaling-probe"), { recursive: true, force: true });
  rmSync(path.join(BENCH_DIR, "scaling-probe-client"), { recursive: true, force: true });
}
