/**
 * Turns the calls the load tools recorded into the report's numbers: per-interval latency,
 * throughput, memory and answers by status, and the checks of the sustained phase (no unexpected
 * error, p99 stable, RSS flat). The thresholds are written here once and printed in the report.
 */
import { percentile } from "../bench/stats.js";
import type { RssSample } from "./rss-sampler.js";
import type { CallRecord, Protocol, StreamRun } from "./streams.js";
import { isExpected, isOk } from "./streams.js";

/** p99 of the last third may be at most this many times the first third's. */
export const P99_TOLERANCE = 1.5;
/** RSS may grow over the second half by at most max(this many MiB, RSS_GROWTH_FRACTION of RSS at mid-run). */
export const RSS_GROWTH_MIB = 32;
export const RSS_GROWTH_FRACTION = 0.1;

/** One interval of the sustained phase. */
export interface IntervalRow {
  /** Seconds from the phase start. */
  fromS: number;
  toS: number;
  calls: number;
  okPerS: number;
  /** Over successful calls, ms. */
  p50: number;
  p99: number;
  restP99: number;
  grpcP99: number;
  throttled: number;
  unexpected: number;
  /** Last RSS sample in the interval, MiB. */
  rssMiB: number;
  load1: number;
  /** CPU the service used, % of one core, between the samples around the interval. */
  cpuPct: number;
  /** Time its main thread waited for a CPU, % of the same span. */
  waitPct: number;
}

/** Answers of one kind. */
export interface StatusCount {
  protocol: Protocol;
  status: string;
  expected: boolean;
  count: number;
}

interface Tagged extends CallRecord {
  protocol: Protocol;
  expected: boolean;
}

function tagged(runs: readonly StreamRun[]): Tagged[] {
  return runs.flatMap((r) => r.calls.map((c) => ({ ...c, protocol: r.protocol, expected: isExpected(r, c.status) })));
}

/** Every kind of answer over `runs`, most frequent first. */
export function statusCounts(runs: readonly StreamRun[]): StatusCount[] {
  const m = new Map<string, StatusCount>();
  for (const c of tagged(runs)) {
    // Error messages can carry ports or ids; the first 80 characters name the kind.
    const status = c.status.slice(0, 80);
    const k = `${c.protocol}|${status}|${c.expected}`;
    const row = m.get(k) ?? { protocol: c.protocol, status, expected: c.expected, count: 0 };
    row.count++;
    m.set(k, row);
  }
  return [...m.values()].sort((a, b) => b.count - a.count);
}

/** Calls that were neither OK nor an expected 429, plus runs cut short by their time cap. */
export function unexpectedCount(runs: readonly StreamRun[]): number {
  return tagged(runs).filter((c) => !c.expected).length + runs.filter((r) => r.capped).length;
}

/** The phase cut into `intervalMs` slices by when each answer arrived. */
export function intervals(
  runs: readonly StreamRun[],
  startMs: number,
  endMs: number,
  intervalMs: number,
  rss: readonly RssSample[],
): IntervalRow[] {
  const calls = tagged(runs);
  const rows: IntervalRow[] = [];
  for (let from = startMs; from < endMs; from += intervalMs) {
    const to = Math.min(from + intervalMs, endMs);
    // The last interval also takes answers that arrived after the nominal end (late stragglers).
    const inside = calls.filter((c) => c.end >= from && (c.end < to || (to === endMs && c.end >= to)));
    const ok = inside.filter((c) => isOk(c.status));
    const lat = (p: Protocol | undefined): number[] =>
      ok.filter((c) => p === undefined || c.protocol === p).map((c) => c.ms);
    const sample = [...rss].reverse().find((s) => s.at < to + 1000) ?? rss[0];
    const before = [...rss].reverse().find((s) => s.at < from + 1000 && s !== sample);
    const span = sample && before ? (sample.at - before.at) / 1000 : Number.NaN;
    rows.push({
      fromS: (from - startMs) / 1000,
      toS: (to - startMs) / 1000,
      calls: inside.length,
      okPerS: ok.length / Math.max((to - from) / 1000, 1e-9),
      p50: percentile(lat(undefined), 50),
      p99: percentile(lat(undefined), 99),
      restP99: percentile(lat("rest"), 99),
      grpcP99: percentile(lat("grpc"), 99),
      throttled: inside.filter((c) => c.expected && !isOk(c.status)).length,
      unexpected: inside.filter((c) => !c.expected).length,
      rssMiB: sample?.rssMiB ?? Number.NaN,
      load1: sample?.load1 ?? Number.NaN,
      cpuPct: sample && before ? (100 * (sample.cpuS - before.cpuS)) / span : Number.NaN,
      waitPct: sample && before ? (100 * (sample.waitS - before.waitS)) / span : Number.NaN,
    });
  }
  return rows;
}

/** p99 of the first and last thirds of the phase. */
export interface P99Check {
  firstThird: number;
  lastThird: number;
  ratio: number;
  ok: boolean;
}

/** Compares the p99 of successful calls in the last third of the phase with the first third. */
export function p99Stability(runs: readonly StreamRun[], startMs: number, endMs: number): P99Check {
  const third = (endMs - startMs) / 3;
  const ok = tagged(runs).filter((c) => isOk(c.status));
  const firstThird = percentile(
    ok.filter((c) => c.end < startMs + third).map((c) => c.ms),
    99,
  );
  const lastThird = percentile(
    ok.filter((c) => c.end >= endMs - third).map((c) => c.ms),
    99,
  );
  const ratio = lastThird / firstThird;
  return { firstThird, lastThird, ratio, ok: Number.isFinite(ratio) && ratio <= P99_TOLERANCE };
}

/** RSS over the second half of the phase. */
export interface RssCheck {
  atMidMiB: number;
  atEndMiB: number;
  /** Least-squares slope over the second half's samples times its length, MiB. */
  growthMiB: number;
  boundMiB: number;
  ok: boolean;
}

/**
 * Growth of RSS over the second half, from a least-squares line through its samples (a line,
 * not last-minus-first, so one garbage collection landing at either end does not decide it).
 */
export function rssFlatness(rss: readonly RssSample[], startMs: number, endMs: number): RssCheck {
  const mid = startMs + (endMs - startMs) / 2;
  const half = rss.filter((s) => s.at >= mid);
  const n = half.length;
  const xs = half.map((s) => (s.at - mid) / 1000);
  const ys = half.map((s) => s.rssMiB);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const slope = sxx > 0 ? xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / sxx : 0;
  const growthMiB = slope * ((endMs - mid) / 1000);
  const atMidMiB = ys[0] ?? Number.NaN;
  const boundMiB = Math.max(RSS_GROWTH_MIB, RSS_GROWTH_FRACTION * atMidMiB);
  return { atMidMiB, atEndMiB: ys[n - 1] ?? Number.NaN, growthMiB, boundMiB, ok: n >= 2 && growthMiB <= boundMiB };
}
