/**
 * `npm run bench`: measures ingest, search latency and limiter overhead on this machine and
 * writes docs/BENCHMARKS.md from every section measured so far (kept in BENCH_DIR/results.json,
 * each with the date and load at its start), so parts can be re-run alone:
 *
 *   npm run bench -- --only ratio,reingest,ingest,copy,search,limits,aggregate,filtered,export --backend lancedb|weaviate|all --posts N
 *
 * ratio: embedder raw vs pipeline throughput on slices (--ratio-posts 1000,4000; --encoder
 *   all-minilm-l6-v2 measures the MiniLM pipeline, which also runs USE-lite for the heads); reingest: a
 * slice ingested, then the same files again (3 rounds at most); ingest: the whole corpora into the kept
 * index (skipped per corpus when an earlier run finished it); copy: fill the Weaviate collection
 * from the embedded index's rows and vectors (no second embedding pass; see copy-index.ts);
 * search: latency over REST and gRPC; profile: a search's stages timed one by one (embedded index);
 * protocol: one cached query over REST, Connect-JSON, Connect-binary and gRPC; floor: end-to-end
 * latency over (query embedding + the raw engine queries); capacity: max sustainable req/s per
 * operation; limits: limiter overhead, memory and Redis stores;
 * scaling: 10k/100k/1M posts replicated from the real corpora, per backend (see scaling.ts);
 * sync: live-source sync from the local HN API against plain ingest of the same posts, and the lag
 * from a post's publication to its being searchable (--sync-posts N stories per throughput round,
 *   --sync-interval S, --sync-lag-seconds T; sync.ts);
 * aggregate: AggregatePosts' one-year weekly histogram (aggregate.ts); filtered: search with a
 * selective and a broad filter against none (filtered.ts); export: ExportPosts' throughput and the
 * service's memory over a whole export (export.ts);
 * monitors: ingest with 0, 1,000 and 10,000 active monitors, delivery latency and deliveries per
 * second to a loopback webhook (--monitor-counts 0,1000,10000; --monitor-posts N per ingest round,
 *   long enough that the matcher's once-per-run compile is a small share; monitors.ts).
 *
 * --replica N runs the index parts over the replicated store of N posts that the scaling part kept
 * (SCALING_KEEP=1) instead of the real corpora's index, and stores them under their own keys.
 * --posts N caps posts per corpus (smoke runs; kept apart from the full-corpus indexes).
 * --ingest-until HH:MM (UTC) ends the full ingest then (as SIGINT/SIGTERM do), keeping what was done.
 * --rounds R repeats each timed measurement R times (medians reported); --no-write prints the
 * report and stores nothing (neither docs/BENCHMARKS.md nor the results store);
 * `--only report` measures nothing and writes the report again from the stored sections;
 * --drop-missing writes the report even when the results store (docs/benchmarks.json) lacks
 * sections the current report shows (report.ts, writeReport).
 * Loopback only; every loop is bounded in count and time.
 */
import { parseArgs } from "node:util";
import type { LocalEncoderName } from "../../src/config.js";
import { LOCAL_ENCODERS } from "../../src/config.js";
import type { Backend } from "./backends.js";
import { targetFor } from "./backends.js";
import { ingestAll, measureRatio } from "./ingest.js";
import { loadText, machineInfo } from "./machine.js";
import { keepResultsInMemory, saveResult } from "./results-store.js";
import type { BenchWeaviate } from "./weaviate-server.js";
import { startBenchWeaviate } from "./weaviate-server.js";

/** Parts in the order they run. */
const PARTS = [
  "ratio",
  "reingest",
  "ingest",
  "copy",
  "search",
  "profile",
  "protocol",
  "floor",
  "capacity",
  "limits",
  "scaling",
  "insights",
  "aggregate",
  "filtered",
  "export",
  "sync",
  "monitors",
  "report",
] as const;
type Part = (typeof PARTS)[number];

/** "HH:MM" (UTC, today or tomorrow) or an ISO date -> epoch ms. */
function untilTime(raw: string): number {
  const hm = /^(\d{2}):(\d{2})$/.exec(raw);
  if (hm) {
    const d = new Date();
    d.setUTCHours(Number(hm[1]), Number(hm[2]), 0, 0);
    if (d.getTime() < Date.now()) d.setUTCDate(d.getUTCDate() + 1);
    return d.getTime();
  }
  const t = Date.parse(raw);
  if (Number.isNaN(t)) throw new Error(`--ingest-until takes HH:MM (UTC) or an ISO date, got "${raw}"`);
  return t;
}

function options() {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      backend: { type: "string", default: "all" },
      posts: { type: "string" },
      rounds: { type: "string" },
      "ratio-posts": { type: "string" },
      queries: { type: "string" },
      "ingest-until": { type: "string" },
      "no-write": { type: "boolean", default: false },
      "drop-missing": { type: "boolean", default: false },
      "sync-posts": { type: "string" },
      "sync-interval": { type: "string" },
      "sync-lag-seconds": { type: "string" },
      replica: { type: "string" },
      "monitor-counts": { type: "string" },
      "monitor-posts": { type: "string" },
      encoder: { type: "string", default: "use-lite" },
    },
  });
  const only = (values.only ?? PARTS.join(","))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of only)
    if (!(PARTS as readonly string[]).includes(p)) throw new Error(`--only takes ${PARTS.join(",")}, got "${p}"`);
  const encoder = values.encoder ?? "use-lite";
  if (!(LOCAL_ENCODERS as readonly string[]).includes(encoder))
    throw new Error(`--encoder must be one of ${LOCAL_ENCODERS.join(", ")}, got "${encoder}"`);
  const b = values.backend ?? "all";
  if (!["lancedb", "weaviate", "all"].includes(b))
    throw new Error(`--backend must be lancedb, weaviate or all, got "${b}"`);
  const int = (name: string, raw: string | undefined, fallback: number | undefined): number | undefined => {
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1)
      throw new Error(`--${name} must be a positive whole number, got "${raw}"`);
    return Number(raw);
  };
  return {
    parts: only as Part[],
    encoder: encoder as LocalEncoderName,
    backends: (b === "all" ? ["lancedb", "weaviate"] : [b]) as Backend[],
    posts: int("posts", values.posts, undefined),
    rounds: int("rounds", values.rounds, 5)!,
    // Two slices by default: 1,000 posts (a round of a few seconds, where the run's start and drain
    // and the first write's index build weigh ~4%) and 4,000. Neither reaches the 20,000 rows at
    // which the vector index's upkeep starts; the whole corpora (240000) do, in ~20 minutes a round.
    ratioPosts: (values["ratio-posts"] ?? "1000,4000").split(",").map((v) => int("ratio-posts", v.trim(), undefined)!),
    queries: int("queries", values.queries, 300)!,
    ingestUntil: values["ingest-until"] === undefined ? undefined : untilTime(values["ingest-until"]),
    write: values["no-write"] !== true,
    dropMissing: values["drop-missing"] === true,
    // The setting is a 30 s poll interval over a few minutes; brief runs may shorten both.
    syncPosts: int("sync-posts", values["sync-posts"], 5000)!,
    syncInterval: int("sync-interval", values["sync-interval"], 30)!,
    syncLagSeconds: int("sync-lag-seconds", values["sync-lag-seconds"], 150)!,
    replica: int("replica", values.replica, undefined),
    monitorPosts: int("monitor-posts", values["monitor-posts"], 2000)!,
    monitorCounts: (values["monitor-counts"] ?? "0,1000,10000").split(",").map((v) => {
      const t = v.trim();
      if (!/^\d+$/.test(t)) throw new Error(`--monitor-counts takes whole numbers such as 0,1000,10000, got "${t}"`);
      return Number(t);
    }),
  };
}

const log = (line: string): void => void process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main(): Promise<void> {
  const opts = options();
  if (!opts.write) keepResultsInMemory();
  const tag = opts.posts === undefined ? "full" : `p${opts.posts}`;
  const started = machineInfo();
  log(`bench: ${opts.parts.join(",")} on ${opts.backends.join(",")} (${tag}); load ${loadText(started)}`);
  let weaviate: BenchWeaviate | undefined;
  // A hard stop, so a wedged engine cannot keep the run (and the shared machine) busy forever.
  const hardStop = setTimeout(() => {
    log("bench: 110 min limit reached; stopping");
    void weaviate?.stop().finally(() => process.exit(4));
  }, 110 * 60_000);
  hardStop.unref();
  try {
    // "report" measures nothing: the report is written again from the stored sections.
    const needsIndex = opts.parts.some(
      (p) =>
        p !== "limits" && p !== "scaling" && p !== "insights" && p !== "sync" && p !== "monitors" && p !== "report",
    );
    // --replica N: the store of N replicated posts kept by the scaling part (SCALING_KEEP=1), its
    // sections stored apart from the real corpora's ("<part>:<backend>:r<N>:<tag>").
    const replica = opts.replica;
    const { keptWeaviateName, keptReplicaTarget } = await import("./scaling.js");
    if (needsIndex && opts.backends.includes("weaviate"))
      weaviate = await startBenchWeaviate(replica === undefined ? undefined : keptWeaviateName(replica));
    for (const backend of needsIndex ? opts.backends : []) {
      const target =
        replica === undefined ? targetFor(backend, tag, weaviate) : keptReplicaTarget(backend, replica, weaviate);
      const at = replica === undefined ? `${backend}:${tag}` : `${backend}:r${replica}:${tag}`;
      if (opts.parts.includes("ratio")) {
        for (const size of opts.ratioPosts) {
          const m = machineInfo();
          const t0 = Date.now();
          const ratio = await measureRatio(
            target,
            Math.min(size, opts.posts === undefined ? Infinity : opts.posts * 4),
            opts.rounds,
            log,
            opts.encoder,
          );
          // Another encoder's ratio is stored apart from the default's, which the report reads.
          const encoder = opts.encoder === "use-lite" ? "" : `:${opts.encoder}`;
          saveResult(`ingest-ratio:${backend}:n${size}:${tag}${encoder}`, {
            machine: m,
            durationS: (Date.now() - t0) / 1000,
            data: ratio,
          });
        }
      }
      if (opts.parts.includes("reingest")) {
        const { measureReingest } = await import("./reingest.js");
        const m = machineInfo();
        const t0 = Date.now();
        // 1,000 posts of each corpus: a first pass of under a minute, long enough that the
        // second pass's fixed costs (starting, the index's close) do not decide its rate.
        const res = await measureReingest(
          target,
          Math.min(4000, opts.posts === undefined ? Infinity : opts.posts * 4),
          Math.min(opts.rounds, 3),
          log,
        );
        saveResult(`reingest:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("ingest")) {
        const m = machineInfo();
        const t0 = Date.now();
        // SIGINT/SIGTERM or --ingest-until end the full ingest after the current batch, and the
        // report still gets what was done (the rest resumes on the next run).
        const stop = new AbortController();
        const onSignal = (): void => stop.abort(new Error("ingest stopped by signal"));
        process.once("SIGINT", onSignal);
        process.once("SIGTERM", onSignal);
        const timer =
          opts.ingestUntil === undefined
            ? undefined
            : setTimeout(() => stop.abort(new Error("ingest deadline")), Math.max(0, opts.ingestUntil - Date.now()));
        const full = await ingestAll(target, opts.posts, log, stop.signal).finally(() => {
          clearTimeout(timer);
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
        });
        saveResult(`ingest-full:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: full });
      }
      if (opts.parts.includes("copy") && backend === "weaviate") {
        const { copyIndex } = await import("./copy-index.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await copyIndex(targetFor("lancedb", tag), target, log);
        saveResult(`copy:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("search")) {
        const { benchSearch } = await import("./search.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await benchSearch(target, { queries: opts.queries, rounds: opts.rounds }, log);
        saveResult(`search:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("profile") && backend === "lancedb") {
        const { profileSearch } = await import("./search-profile.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await profileSearch(target, 30, log);
        saveResult(`profile:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("protocol")) {
        const { benchProtocol } = await import("./protocol.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await benchProtocol(target, { rounds: Math.max(opts.rounds, 5), callsPerRound: 20 }, log);
        saveResult(`protocol:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("floor")) {
        const { benchFloor } = await import("./floor.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await benchFloor(target, { rounds: Math.max(opts.rounds, 5), queriesPerRound: 20 }, log);
        saveResult(`floor:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("aggregate")) {
        const { benchAggregate } = await import("./aggregate.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await benchAggregate(
          target,
          { rounds: Math.min(opts.rounds, 3), queries: Math.min(opts.queries, 20), replica: replica !== undefined },
          log,
        );
        saveResult(`aggregate:${at}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("filtered")) {
        const { benchFiltered } = await import("./filtered.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await benchFiltered(
          target,
          { rounds: Math.min(opts.rounds, 3), queries: Math.min(opts.queries, 40), replica: replica !== undefined },
          log,
        );
        saveResult(`filtered:${at}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("export")) {
        const { benchExport } = await import("./export.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await benchExport(target, { replica: replica !== undefined }, log);
        saveResult(`export:${at}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
      if (opts.parts.includes("capacity")) {
        const { benchCapacity } = await import("./capacity.js");
        const m = machineInfo();
        const t0 = Date.now();
        const res = await benchCapacity(target, { rounds: Math.min(opts.rounds, 3), stepSeconds: 4 }, log);
        saveResult(`capacity:${backend}:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
      }
    }
    if (opts.parts.includes("limits")) {
      const { benchLimits } = await import("./limits.js");
      const m = machineInfo();
      const t0 = Date.now();
      const res = await benchLimits({ rounds: opts.rounds }, log);
      saveResult("limits", { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
    }
    if (opts.parts.includes("scaling")) {
      // Its own stores and Weaviate servers per size (scaling.ts); each size is saved when done.
      const { benchScaling } = await import("./scaling.js");
      await benchScaling(opts.backends, log, (key, section) => saveResult(`${key}:${tag}`, section));
    }
    if (opts.parts.includes("insights")) {
      // Its own copy of the index and its own Weaviate server (insights-prepare.ts).
      const { benchInsightsAll } = await import("./insights.js");
      await benchInsightsAll(opts.backends, tag, { rounds: opts.rounds }, log, (key, section) =>
        saveResult(`${key}:${tag}`, section),
      );
    }
    if (opts.parts.includes("sync")) {
      // Its own scratch indexes and local HN API (sync.ts); embedded backend only.
      const { benchSync } = await import("./sync.js");
      const m = machineInfo();
      const t0 = Date.now();
      const res = await benchSync(
        {
          posts: Math.min(opts.syncPosts, 20_000),
          rounds: Math.min(opts.rounds, 3),
          intervalS: opts.syncInterval,
          lagSeconds: opts.syncLagSeconds,
          publishEveryMs: 2000,
        },
        log,
      );
      saveResult(`sync:lancedb:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
    }
    if (opts.parts.includes("monitors")) {
      // Its own scratch indexes, monitor stores and loopback receiver (monitors.ts); embedded backend only.
      const { benchMonitors } = await import("./monitors.js");
      const m = machineInfo();
      const t0 = Date.now();
      const res = await benchMonitors(
        { posts: Math.min(opts.monitorPosts, 8000), rounds: Math.min(opts.rounds, 3), counts: opts.monitorCounts },
        log,
      );
      saveResult(`monitors:lancedb:${tag}`, { machine: m, durationS: (Date.now() - t0) / 1000, data: res });
    }
  } finally {
    await weaviate?.stop();
    clearTimeout(hardStop);
  }
  const { renderReport, writeReport } = await import("./report.js");
  const text = renderReport(tag);
  if (opts.write) {
    log(`bench: wrote ${writeReport(text, opts.dropMissing)}`);
  } else {
    process.stdout.write(text);
  }
}

await main();
