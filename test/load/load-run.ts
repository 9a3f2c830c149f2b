/**
 * One load run, used by `npm run load` (run.ts) and the CI smoke test: a fresh data directory
 * with the seeded sample index, the key mix written to its accounts store, the real service in
 * its own process (test/bench/service-process.ts), then optionally a capacity ramp, then the
 * sustained mix (REST through autocannon and gRPC through ghz, concurrently) with the service's
 * RSS sampled every interval, then the usage reconciliation while the service is still up.
 * Loopback only; every phase is bounded in calls and time.
 */
import { rmSync } from "node:fs";
import os from "node:os";
import type { MachineInfo } from "../bench/machine.js";
import { machineInfo } from "../bench/machine.js";
import { spawnService } from "../bench/service-process.js";
import type { IntervalRow, P99Check, RssCheck, StatusCount } from "./analysis.js";
import { intervals, p99Stability, rssFlatness, statusCounts, unexpectedCount } from "./analysis.js";
import type { CapacityResult, RampOptions } from "./capacity.js";
import { measureCapacity } from "./capacity.js";
import { findGhz } from "./grpc-load.js";
import type { KeySpec } from "./load-keys.js";
import { createLoadKeys, KEY_MIX } from "./load-keys.js";
import { runPhase } from "./phase.js";
import { QueryFeed } from "./query-feed.js";
import type { RssSample } from "./rss-sampler.js";
import { startRssSampler } from "./rss-sampler.js";
import { freshSeededDataDir } from "./seeded-index.js";
import type { StreamRun } from "./streams.js";
import { sustainStreamCount, sustainStreams, throttledStreams } from "./streams.js";
import type { KeyUsage } from "./usage-reconcile.js";
import { reconcileUsage } from "./usage-reconcile.js";

/** What to run. */
export interface LoadOptions {
  /** Sample posts in the index (about). */
  posts: number;
  /** Length of the sustained phase, s. */
  durationS: number;
  /** Sampling interval, s. */
  intervalS: number;
  /** Total sustained req/s; when absent, capacity is measured and `loadFraction` of it used. */
  rate?: number;
  loadFraction: number;
  ramp: RampOptions;
  log: (line: string) => void;
}

/** A stream as the report lists it. */
export interface StreamSummary {
  id: string;
  rate: number;
  requested: number;
  answered: number;
  /** How long the tool took to send them all and get every answer, s (nominal: the duration). */
  seconds: number;
  capped: boolean;
}

/** Everything a run measured. */
export interface LoadResult {
  machineAtStart: MachineInfo;
  machineAtEnd: MachineInfo;
  /** Nice value the run (and so the service it spawned) ran at. */
  niceness: number;
  posts: number;
  keys: KeySpec[];
  capacity?: CapacityResult;
  loadFraction: number;
  /** Why the sustained rate is not loadFraction x capacity, when it is not. */
  rateNote?: string;
  /** Total req/s offered by the sustained streams (without the throttled keys' streams). */
  sustainedRate: number;
  /** Total req/s offered by the throttled keys' streams. */
  throttledRate: number;
  durationS: number;
  intervalS: number;
  streams: StreamSummary[];
  intervals: IntervalRow[];
  /** Answers by kind in the sustained phase, and over the whole run (ramp included). */
  statusesSustained: StatusCount[];
  statusesAll: StatusCount[];
  /** Unexpected answers and capped tool runs over the whole run. */
  unexpected: number;
  p99: P99Check;
  rss: RssCheck;
  rssSamples: RssSample[];
  usage: KeyUsage[];
  usageExact: boolean;
  /** The service's warnings and errors (log level warn), last few KB. */
  serviceLogTail: string;
}

/** Runs the load; throws when the tools or the service cannot run at all. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const { log } = opts;
  const ghz = findGhz();
  if (ghz === undefined) throw new Error("ghz not found: run `bash scripts/install-load-tools.sh` (or set GHZ_BIN)");
  const machineAtStart = machineInfo();
  const feed = new QueryFeed();
  const dataDir = await freshSeededDataDir(opts.posts, log);
  try {
    const keys = await createLoadKeys(dataDir);
    const svc = await spawnService(dataDir, { THREADSIGHT_DATA_DIR: dataDir });
    log(
      `service pid ${svc.pid} at ${svc.url} with ${svc.posts} posts; keys: ${keys.map((k) => `${k.label} (${k.plan})`).join(", ")}`,
    );
    const target = { url: svc.url, address: svc.address, ghz };
    const sampler = startRssSampler(svc.pid, opts.intervalS * 1000, (s) =>
      log(`rss ${s.rssMiB.toFixed(0)} MiB, load ${s.load1.toFixed(2)}`),
    );
    const runs: StreamRun[] = [];
    try {
      let capacity: CapacityResult | undefined;
      let rate = opts.rate;
      let rateNote: string | undefined;
      if (rate === undefined) {
        const ramp = await measureCapacity(target, keys, feed, opts.ramp, log);
        capacity = ramp.result;
        runs.push(...ramp.runs);
        const wanted = Math.floor(opts.loadFraction * capacity.capacity);
        // Each stream paces whole requests per second, so the mix cannot go below one per stream.
        const floor = sustainStreamCount();
        rate = Math.max(floor, wanted);
        if (wanted < floor) {
          rateNote =
            capacity.capacity <= 0
              ? `no ramp step was sustained on this machine at the time; the sustained phase ran at the mix's floor of ${floor} req/s (one per stream), which is above the machine's capacity then`
              : `${opts.loadFraction * 100}% of the capacity is ${wanted} req/s, below the mix's floor of ${floor} req/s (one per stream); the sustained phase ran at the floor`;
          log(`capacity: ${rateNote}`);
        }
      }
      const sustained = sustainStreams(rate, keys, feed, opts.durationS);
      const throttled = throttledStreams(keys, feed, opts.durationS);
      const sustainedRate = sustained.reduce((a, s) => a + s.rate, 0);
      const throttledRate = throttled.reduce((a, s) => a + s.rate, 0);
      log(
        `sustained: ${sustainedRate} req/s over ${sustained.length} streams + ${throttledRate} req/s on throttled keys, ${opts.durationS} s`,
      );
      const phaseStart = Date.now();
      const phaseRuns = await runPhase(target, [...sustained, ...throttled], opts.durationS);
      const phaseEnd = Math.max(phaseStart + opts.durationS * 1000, ...phaseRuns.map((r) => r.endedAt));
      runs.push(...phaseRuns);
      const rssSamples = sampler.stop();
      const phaseRss = rssSamples.filter((s) => s.at >= phaseStart);
      log("reconciling usage");
      const usage = await reconcileUsage(keys, runs, dataDir, svc.url);
      return {
        machineAtStart,
        machineAtEnd: machineInfo(),
        niceness: os.getPriority(),
        posts: svc.posts,
        keys: KEY_MIX.map((k) => ({ ...k })),
        ...(capacity ? { capacity } : {}),
        loadFraction: opts.loadFraction,
        ...(rateNote ? { rateNote } : {}),
        sustainedRate,
        throttledRate,
        durationS: opts.durationS,
        intervalS: opts.intervalS,
        streams: phaseRuns.map((r) => ({
          id: r.id,
          rate: r.rate,
          requested: r.requested,
          answered: r.calls.length,
          seconds: (r.endedAt - r.startedAt) / 1000,
          capped: r.capped,
        })),
        intervals: intervals(phaseRuns, phaseStart, phaseEnd, opts.intervalS * 1000, phaseRss),
        statusesSustained: statusCounts(phaseRuns),
        statusesAll: statusCounts(runs),
        unexpected: unexpectedCount(runs),
        p99: p99Stability(phaseRuns, phaseStart, phaseEnd),
        rss: rssFlatness(phaseRss, phaseStart, phaseEnd),
        rssSamples: phaseRss,
        usage,
        usageExact: usage.every((u) => u.exact),
        serviceLogTail: svc.logTail(),
      };
    } finally {
      sampler.stop();
      await svc.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
