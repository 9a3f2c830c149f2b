/**
 * `npm run load`: the sustained mixed load on this machine, then docs/RELIABILITY.md's load
 * section from what it measured.
 *
 *   npm run load -- [--duration 5m] [--rate N] [--fraction 0.8] [--posts 1500] [--interval 10] [--no-write]
 *
 * Without --rate, a short capacity ramp runs first and the sustained phase runs at --fraction of
 * the measured capacity. The checks (no unexpected error, p99 stable, RSS flat, usage exact) are
 * printed and written to the report; the exit code is 1 when one fails, so a regression is seen.
 * Loopback only; bounded by the duration (each phase has a time cap) and a hard stop.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadText, machineInfo } from "../bench/machine.js";
import { runLoad } from "./load-run.js";
import { renderLoadSection, writeLoadSection } from "./report.js";
import { LOAD_CACHE } from "./seeded-index.js";

/** "5m", "90s", "300" (seconds) -> seconds. */
export function parseDuration(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(raw.trim());
  if (!m || Number(m[1]) <= 0)
    throw new Error(`--duration takes a positive number of seconds or minutes (300, 300s, 5m), got "${raw}"`);
  return Math.round(Number(m[1]) * (m[2] === "m" ? 60 : 1));
}

function positive(name: string, raw: string | undefined, fallback: number, max = Infinity): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > max)
    throw new Error(`--${name} must be a number in (0, ${max}], got "${raw}"`);
  return n;
}

function options() {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "5m" },
      rate: { type: "string" },
      fraction: { type: "string" },
      posts: { type: "string" },
      interval: { type: "string" },
      "no-write": { type: "boolean", default: false },
    },
  });
  const durationS = parseDuration(values.duration ?? "5m");
  if (durationS > 3600) throw new Error(`--duration is capped at 60m, got ${durationS} s`);
  return {
    durationS,
    rate: values.rate === undefined ? undefined : Math.round(positive("rate", values.rate, 1, 10_000)),
    loadFraction: positive("fraction", values.fraction, 0.8, 1),
    posts: Math.round(positive("posts", values.posts, 1500, 20_000)),
    intervalS: positive("interval", values.interval, 10, 600),
    write: values["no-write"] !== true,
  };
}

const log = (line: string): void => void process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main(): Promise<number> {
  const opts = options();
  log(
    `load: ${opts.durationS} s sustained, ${opts.rate === undefined ? `${opts.loadFraction * 100}% of measured capacity` : `${opts.rate} req/s`}, ~${opts.posts} posts; load ${loadText(machineInfo())}`,
  );
  // A hard stop, so a wedged service or tool cannot keep the shared machine busy: the sustained
  // phase, its cap, the ramp and seeding all fit well inside this.
  const hardStop = setTimeout(
    () => {
      log("load: hard time limit reached; stopping");
      process.exit(4);
    },
    (opts.durationS * 3 + 30 * 60) * 1000,
  );
  hardStop.unref();
  // Ctrl-C / kill: exit through process.exit so the 'exit' guards stop the service and ghz children.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`load: ${signal}; stopping`);
      process.exit(130);
    });
  }
  const result = await runLoad({
    posts: opts.posts,
    durationS: opts.durationS,
    intervalS: opts.intervalS,
    ...(opts.rate === undefined ? {} : { rate: opts.rate }),
    loadFraction: opts.loadFraction,
    ramp: { startRate: 4, factor: 1.5, maxSteps: 9, stepSeconds: 10 },
    log,
  });
  clearTimeout(hardStop);
  // The raw measurements, for a closer look than the report gives.
  const raw = path.join(LOAD_CACHE, "last-run.json");
  writeFileSync(raw, JSON.stringify(result, null, 1));
  const section = renderLoadSection(result);
  if (opts.write) log(`load: wrote ${writeLoadSection(section)} (raw data: ${raw})`);
  else process.stdout.write(section + "\n");
  const failed = [
    result.unexpected > 0 ? `${result.unexpected} unexpected errors` : "",
    result.p99.ok ? "" : `p99 not stable (x${result.p99.ratio.toFixed(2)})`,
    result.rss.ok ? "" : `RSS grew ${result.rss.growthMiB.toFixed(1)} MiB`,
    result.usageExact ? "" : "usage does not reconcile",
  ].filter(Boolean);
  log(failed.length === 0 ? "load: all checks passed" : `load: checks failed: ${failed.join("; ")}`);
  if (result.serviceLogTail.trim() !== "") log(`load: service warnings (tail):\n${result.serviceLogTail.slice(-2000)}`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main();
