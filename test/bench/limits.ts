/**
 * Limiter overhead (issue 4), by running the existing micro-benchmark test/bench/limiter.ts in a
 * child process and reading its result lines: the same call through Connect's in-memory router
 * transport with the limits interceptor (memory, embedded default = memory + SQLite, Redis on
 * loopback via a real redis-server from the test harness) against the same call with limits off.
 * One child run already interleaves the stores over several rounds and prints medians; this
 * section repeats the child `rounds` times and keeps the median of those medians.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { median } from "./stats.js";

/** One store's figures, microseconds. */
export interface LimiterRow {
  name: string;
  perCallUs: number;
  addedUs: number;
  addedUsPerRun: number[];
}

/** The limits section. */
export interface LimitsResult {
  callsPerRun: number;
  roundsPerChild: number;
  children: number;
  rows: LimiterRow[];
  header: string;
}

const CALLS = 2000;
const ROUNDS_PER_CHILD = 7;

function runChild(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(PACKAGE_ROOT, "test/bench/limiter.ts"), String(CALLS), String(ROUNDS_PER_CHILD)],
      {
        cwd: PACKAGE_ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 600_000);
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`limiter.ts exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

const LINE = /^\s+(.+?)\s+([\d.]+) us\/call(?:\s+added (-?[\d.]+) us)?/;

/** Runs the limiter micro-benchmark `rounds` times. */
export async function benchLimits(opts: { rounds: number }, log: (s: string) => void): Promise<LimitsResult> {
  const children = Math.max(1, Math.min(opts.rounds, 5));
  const perName = new Map<string, { perCall: number[]; added: number[] }>();
  let header = "";
  for (let i = 0; i < children; i++) {
    const out = await runChild();
    header = out.split("\n")[0] ?? "";
    for (const line of out.split("\n")) {
      const m = LINE.exec(line);
      if (!m) continue;
      const e = perName.get(m[1]!) ?? { perCall: [], added: [] };
      e.perCall.push(Number(m[2]));
      e.added.push(m[3] === undefined ? 0 : Number(m[3]));
      perName.set(m[1]!, e);
    }
    log(`limits run ${i + 1}/${children}: ${[...perName].map(([n, e]) => `${n} +${e.added.at(-1)} us`).join("; ")}`);
  }
  const rows = [...perName].map(([name, e]) => ({
    name,
    perCallUs: median(e.perCall),
    addedUs: median(e.added),
    addedUsPerRun: e.added,
  }));
  return { callsPerRun: CALLS, roundsPerChild: ROUNDS_PER_CHILD, children, rows, header };
}
