/**
 * Capacity of the mix: a short open-loop ramp after one warm-up step. Each step offers the whole
 * sustained mix at a total rate (x1.5 per step) for a few seconds; a step is sustainable when
 * every call succeeded, the service kept up (successful calls per second over the span the calls
 * took >= KEEP_UP of the offered rate: past capacity, answers queue and the span stretches) and
 * p99 stayed under CAPACITY_P99_MS. Capacity is the successful calls per second of the last
 * sustainable step, so it is a lower bound within one ramp factor of the true figure.
 */
import { percentile } from "../bench/stats.js";
import { statusCounts, unexpectedCount } from "./analysis.js";
import type { LoadKey } from "./load-keys.js";
import type { Target } from "./phase.js";
import { runPhase } from "./phase.js";
import type { QueryFeed } from "./query-feed.js";
import type { StreamRun } from "./streams.js";
import { isOk, sustainStreams } from "./streams.js";

/**
 * Share of the offered rate a step must deliver to count as keeping up. Not 1: the span of a
 * step's calls includes the last answers' latency, so even an idle service delivers a few
 * percent less than offered over a 10 s step.
 */
export const KEEP_UP = 0.85;
/**
 * p99 above this means calls are queueing, not being served. Generous because the machine this
 * runs on is shared (load averages of 10-20 on 2 cores are common while others build and test).
 */
export const CAPACITY_P99_MS = 5000;

/** One step of the ramp. */
export interface CapacityStep {
  offered: number;
  okPerS: number;
  p99: number;
  seconds: number;
  unexpected: number;
  sustainable: boolean;
}

/** The ramp's outcome. */
export interface CapacityResult {
  stepSeconds: number;
  factor: number;
  steps: CapacityStep[];
  /** Successful calls/s of the last sustainable step (0 if none was). */
  capacity: number;
}

/** Options of the ramp. */
export interface RampOptions {
  startRate: number;
  factor: number;
  maxSteps: number;
  stepSeconds: number;
}

/** " (rest 503 x2, capped: grpc/leads/pro)" for the log, or "" when nothing was unexpected. */
export function describeUnexpected(runs: readonly StreamRun[]): string {
  const bad = statusCounts(runs)
    .filter((s) => !s.expected)
    .map((s) => `${s.protocol} ${s.status} x${s.count}`);
  const capped = runs.filter((r) => r.capped).map((r) => r.id);
  if (capped.length > 0) bad.push(`capped: ${capped.join(", ")}`);
  return bad.length === 0 ? "" : ` (${bad.join("; ")})`;
}

/** Runs the ramp; returns the result and every run (their calls count in usage too). */
export async function measureCapacity(
  target: Target,
  keys: readonly LoadKey[],
  feed: QueryFeed,
  opts: RampOptions,
  log: (s: string) => void,
): Promise<{ result: CapacityResult; runs: StreamRun[] }> {
  const steps: CapacityStep[] = [];
  const all: StreamRun[] = [];
  // Warm-up at the start rate (JIT, first embeddings, page cache), not judged; its calls count
  // in usage like any other.
  const warm = await runPhase(target, sustainStreams(opts.startRate, keys, feed, opts.stepSeconds), opts.stepSeconds);
  all.push(...warm);
  log(
    `capacity: warm-up done (${warm.reduce((a, r) => a + r.calls.length, 0)} calls, ${unexpectedCount(warm)} unexpected${describeUnexpected(warm)})`,
  );
  let rate = opts.startRate;
  for (let i = 0; i < opts.maxSteps; i++) {
    const streams = sustainStreams(rate, keys, feed, opts.stepSeconds);
    const offered = streams.reduce((a, s) => a + s.rate, 0);
    const t0 = Date.now();
    const runs = await runPhase(target, streams, opts.stepSeconds);
    const seconds = (Date.now() - t0) / 1000;
    all.push(...runs);
    const ok = runs.flatMap((r) => r.calls.filter((c) => isOk(c.status)));
    // Throughput over the span the calls covered (first start to last answer), which leaves
    // out the tools' start-up; never over less than the nominal step.
    const span =
      ok.length === 0 ? seconds : (Math.max(...ok.map((c) => c.end)) - Math.min(...ok.map((c) => c.end - c.ms))) / 1000;
    const step: CapacityStep = {
      offered,
      okPerS: ok.length / Math.max(span, opts.stepSeconds),
      p99: percentile(
        ok.map((c) => c.ms),
        99,
      ),
      seconds,
      unexpected: unexpectedCount(runs),
      sustainable: false,
    };
    step.sustainable = step.unexpected === 0 && step.okPerS >= KEEP_UP * offered && step.p99 <= CAPACITY_P99_MS;
    steps.push(step);
    log(
      `capacity: offered ${offered} req/s -> ${step.okPerS.toFixed(1)} ok/s in ${seconds.toFixed(1)} s, p99 ${step.p99.toFixed(0)} ms, ${step.unexpected} unexpected${describeUnexpected(runs)}: ${step.sustainable ? "sustained" : "NOT sustained"}`,
    );
    if (!step.sustainable) break;
    rate = Math.ceil(rate * opts.factor);
  }
  const lastGood = [...steps].reverse().find((s) => s.sustainable);
  return {
    result: { stepSeconds: opts.stepSeconds, factor: opts.factor, steps, capacity: lastGood?.okPerS ?? 0 },
    runs: all,
  };
}
