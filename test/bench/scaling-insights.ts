/**
 * ListTrends and FindLeads at scale: the insights measurement (insights.ts benchInsights: the
 * service in its own process, REST and gRPC, trends over a one-month and a one-year window, leads
 * at concurrency 1 and 16) over the store the scaling part kept (SCALING_KEEP=1, see scaling.ts;
 * SCALING_INSIGHTS_BACKEND=lancedb (default) or weaviate, whose kept server is started here): posts replicated from the kept embedded index, each copy carrying its source
 * post's topic and date, so every window holds (size / source posts) times the posts it holds in
 * the ~93k insights store, over the same topics and days. The trend rollups of the replica are
 * built here first (TrendStore.rebuildRollups, the same as `threadsight topics rebuild` ends with),
 * and the time it took is stored with the result under "scaling:insights:<backend>:<size>:full";
 * docs/BENCHMARKS.md is then rewritten from the results store.
 *
 * Run: SCALING_INSIGHTS_SIZE=1000000 SCALING_INSIGHTS_ROUNDS=2 nice -n 10 node --import tsx test/bench/scaling-insights.ts
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { openTrendStore } from "../../src/index/open-trend-store.js";
import type { BackendTarget } from "./backends.js";
import { benchInsights } from "./insights.js";
import { loadText, machineInfo } from "./machine.js";
import { BENCH_DIR, saveResult } from "./results-store.js";
import type { ScalingInsights } from "./scaling.js";
import { keptLanceDir, keptWeaviateName, SCALING_COLLECTION } from "./scaling.js";
import { msSince } from "./stats.js";
import { startBenchWeaviate } from "./weaviate-server.js";

const log = (line: string): void => void process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

const size = envInt("SCALING_INSIGHTS_SIZE", 1_000_000);
const rounds = envInt("SCALING_INSIGHTS_ROUNDS", 2);
const backend = process.env.SCALING_INSIGHTS_BACKEND ?? "lancedb";
if (backend !== "lancedb" && backend !== "weaviate")
  throw new Error(`SCALING_INSIGHTS_BACKEND must be lancedb or weaviate, got "${backend}"`);
const dataDir = backend === "lancedb" ? keptLanceDir(size) : path.join(BENCH_DIR, `${keptWeaviateName(size)}-client`);
if (!existsSync(dataDir))
  throw new Error(
    `no kept store at ${dataDir}: run SCALING_KEEP=1 SCALING_SIZES=${size} npm run bench -- --only scaling --backend ${backend} first`,
  );
const server = backend === "weaviate" ? await startBenchWeaviate(keptWeaviateName(size)) : undefined;
const target: BackendTarget = server
  ? {
      backend,
      dataDir,
      collection: SCALING_COLLECTION,
      env: {
        THREADSIGHT_DATA_DIR: dataDir,
        WEAVIATE_URL: server.httpUrl,
        WEAVIATE_GRPC_URL: server.grpcUrl,
        WEAVIATE_COLLECTION: SCALING_COLLECTION,
      },
    }
  : { backend: "lancedb", dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } };

const machine = machineInfo();
const started = Date.now();
log(`scaling insights: ${dataDir}; load ${loadText(machine)}`);
const store = await openTrendStore(loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env }));
let rollupBuildS = 0;
try {
  if (!(await store.rollupsFresh())) {
    const t0 = process.hrtime.bigint();
    await store.rebuildRollups();
    rollupBuildS = msSince(t0) / 1000;
    log(`scaling insights: rollups built in ${rollupBuildS.toFixed(0)} s`);
  }
} finally {
  await store.close();
}
const result = await benchInsights(target, { rounds }, log);
const data: ScalingInsights = { ...result, size, rollupBuildS };
// Keyed with the ":full" tag the report selects (the replica is of the full kept index).
await server?.stop();
saveResult(`scaling:insights:${backend}:${size}:full`, { machine, durationS: (Date.now() - started) / 1000, data });
log(`scaling insights: saved as scaling:insights:${backend}:${size}:full`);
// Imported only now: the report pulls in every part's module, and the measurement is saved either way.
const { renderReport, writeReport } = await import("./report.js");
log(`scaling insights: wrote ${writeReport(renderReport("full"))}`);
