/**
 * Renders the load section of docs/RELIABILITY.md from a run's measurements. The section sits
 * between `<!-- load:start -->` and `<!-- load:end -->`; writing replaces only that span and keeps
 * the rest of the file (other suites own the fault and fuzzing sections).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { findPlan, loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import { describeQuotaPeriod } from "../../src/limits/quota-period.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { loadText } from "../bench/machine.js";
import { count, fixed } from "../bench/stats.js";
import { table } from "../eval/format.js";
import { P99_TOLERANCE, RSS_GROWTH_FRACTION, RSS_GROWTH_MIB } from "./analysis.js";
import { CAPACITY_P99_MS, KEEP_UP } from "./capacity.js";
import type { LoadResult } from "./load-run.js";
import { OPERATION_NAMES, OPERATIONS } from "./workload.js";

/** The markers around the generated section. */
export const START_MARKER = "<!-- load:start -->";
export const END_MARKER = "<!-- load:end -->";

const pass = (ok: boolean): string => (ok ? "pass" : "**FAIL**");
const ms = (x: number): string => fixed(x, 0);

function planText(planId: string): string {
  const catalog = loadPlanCatalog(loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME }).plansFile);
  const plan = findPlan(catalog, planId);
  if (plan === undefined) return "?";
  const rate =
    plan.ratePerMinute !== null ? `${plan.ratePerMinute}/min` : `custom (default ${plan.customRateDefault}/min)`;
  const quota = plan.quota === null ? "unlimited" : `${count(plan.quota)} ${describeQuotaPeriod(plan.period)}`;
  return `${rate}; ${quota}`;
}

function overridesText(o: { ratePerMinute?: number; quota?: number | null } | undefined): string {
  if (o === undefined) return "none";
  const parts: string[] = [];
  if (o.ratePerMinute !== undefined) parts.push(`rate ${count(o.ratePerMinute)}/min`);
  if (o.quota !== undefined) parts.push(o.quota === null ? "quota unlimited" : `quota ${count(o.quota)}`);
  return parts.join(", ");
}

/** The section, markers included. */
export function renderLoadSection(r: LoadResult): string {
  const m = r.machineAtStart;
  const c = r.capacity;
  const checks = [
    [
      "zero unexpected errors",
      "every call OK, except 429 on the Lite/Free keys; no tool run cut short",
      `${count(r.unexpected)} unexpected`,
      pass(r.unexpected === 0),
    ],
    [
      "p99 stable",
      `p99 of the last third <= ${P99_TOLERANCE}x the first third`,
      `${ms(r.p99.firstThird)} ms -> ${ms(r.p99.lastThird)} ms (x${fixed(r.p99.ratio, 2)})`,
      pass(r.p99.ok),
    ],
    [
      "RSS flat",
      `growth over the second half (least-squares line through the samples) <= max(${RSS_GROWTH_MIB} MiB, ${RSS_GROWTH_FRACTION * 100}% of RSS at mid-run)`,
      `${fixed(r.rss.atMidMiB, 0)} MiB at mid-run, ${fixed(r.rss.atEndMiB, 0)} MiB at the end, trend ${fixed(r.rss.growthMiB, 1)} MiB (bound ${fixed(r.rss.boundMiB, 0)} MiB)`,
      pass(r.rss.ok),
    ],
    [
      "usage counted exactly once",
      "per key and operation: OK calls seen by the tools = `threadsight usage` = GET /api/v1/usage; 429s not counted",
      r.usageExact
        ? "all keys equal"
        : r.usage.every((u) => u.exact || u.explainedByFailures)
          ? "differs only by calls that failed after admission (see below)"
          : "mismatch (see below)",
      pass(r.usageExact),
    ],
  ];
  const statuses = new Map<
    string,
    { protocol: string; status: string; expected: boolean; sustained: number; all: number }
  >();
  for (const [list, field] of [
    [r.statusesAll, "all"],
    [r.statusesSustained, "sustained"],
  ] as const) {
    for (const s of list) {
      const k = `${s.protocol}|${s.status}|${s.expected}`;
      const row = statuses.get(k) ?? {
        protocol: s.protocol,
        status: s.status,
        expected: s.expected,
        sustained: 0,
        all: 0,
      };
      row[field] += s.count;
      statuses.set(k, row);
    }
  }
  const lines: string[] = [
    START_MARKER,
    "## Sustained load",
    "",
    "Written by `npm run load` (test/load/run.ts) from the run it measured; nothing here is typed by hand. Re-run with",
    `\`npm run load -- --duration 5m\` (options: \`--rate N\` to skip the capacity ramp, \`--posts N\`, \`--interval S\`, \`--no-write\`).`,
    "The short CI version is test/load/load-smoke.test.ts (same harness, ~25 s at a low rate, no latency assertions).",
    "",
    `- Measured: ${r.machineAtStart.at.slice(0, 19).replace("T", " ")} to ${r.machineAtEnd.at.slice(0, 19).replace("T", " ")} UTC.`,
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, ${m.os}, Node ${m.node}.`,
    `- Load average at start ${loadText(r.machineAtStart)}; at end ${loadText(r.machineAtEnd)}. **The machine is shared**`,
    "  with other engineers' builds and tests, which ran during this measurement: absolute latencies and the capacity",
    "  figure are those of a busy machine, and the per-interval load column shows how busy.",
    ...(r.niceness !== 0
      ? [
          `- The run (service and tools) ran at nice ${r.niceness}, as bulk jobs on this shared machine must, so other work took CPU first.`,
        ]
      : []),
    `- Data: ${count(r.posts)} real sample posts (business subreddits 2013, Stack Exchange Startups, Hacker News 2015-2016; test/harness/seed.ts)`,
    "  in the embedded LanceDB index with its topic model; accounts, usage rows and quota counters in SQLite; per-minute",
    "  windows in process memory (the single-machine defaults).",
    "- Service: its own process (test/bench/serve-child.ts: the whole service on an ephemeral loopback port, 2 embedder",
    "  workers, log level warn). Load: REST with autocannon (in the load process; exact request counts, paced per connection),",
    "  gRPC with ghz (one child per stream, exact counts at a fixed rate, schema read through server reflection).",
    "  Each stream is one operation, one protocol, one key, at a fixed rate, so every call is attributable to a key.",
    "",
    "### Keys and plans",
    "",
    table(
      ["key", "plan", "plan limits (Variant B)", "per-key overrides", "role"],
      r.keys.map((k) => [
        k.label,
        k.plan,
        planText(k.plan),
        overridesText(k.overrides),
        k.throttled ? "kept at plan limits: 429s EXPECTED (counted apart)" : "carries the sustained mix",
      ]),
    ),
    "",
    "### Mix",
    "",
    table(
      ["operation", "share", "REST", "gRPC"],
      OPERATION_NAMES.map((op) => [
        op,
        `${fixed(OPERATIONS[op].weight * 100, 0)}%`,
        `POST ${OPERATIONS[op].path}`,
        OPERATIONS[op].rpc,
      ]),
    ),
    "",
    "Each share is split evenly between REST and gRPC. Query texts are real forum questions (SemEval-2016 Qatar Living,",
    "read from ../shared/data; with a searcher's qualifier appended once the set is used up), and each stream alternates",
    "texts never sent before with a hot set of 8, so about half of the query-bearing calls miss the query-embedding cache",
    "all run long (test/load/query-feed.ts). Search bodies rotate four date windows, leads three `min_score`s, trends",
    "five windows and three limits.",
    "",
    "### Capacity",
    "",
  ];
  if (c === undefined) {
    lines.push(`Not measured in this run (\`--rate\` given): sustained rate set to ${r.sustainedRate} req/s.`, "");
  } else {
    lines.push(
      `After one warm-up step, a short open-loop ramp of the whole sustained mix (x${c.factor} per step, ${c.stepSeconds} s per step). A step is sustained when every call`,
      `succeeded, the service kept up (OK calls per second over the span of the step's calls >= ${KEEP_UP * 100}% of the offered rate) and p99 <= ${CAPACITY_P99_MS} ms.`,
      "",
      table(
        ["offered req/s", "OK req/s", "p99 ms", "step s", "unexpected", "sustained"],
        c.steps.map((s) => [
          String(s.offered),
          fixed(s.okPerS, 1),
          ms(s.p99),
          fixed(s.seconds, 1),
          String(s.unexpected),
          s.sustainable ? "yes" : "**no**",
        ]),
      ),
      "",
      `Capacity (OK req/s of the last sustained step, a lower bound within one ramp factor): **${fixed(c.capacity, 1)} req/s**.`,
      `Sustained phase at ${fixed(r.loadFraction * 100, 0)}% of it: **${r.sustainedRate} req/s** offered over the mix (per-stream rates rounded to whole`,
      `requests per second), plus ${r.throttledRate} req/s on the Lite and Free keys.`,
      ...(r.rateNote ? ["", `**Note:** ${r.rateNote}.`] : []),
      "",
    );
  }
  lines.push(
    `### Sustained phase: ${fixed(r.durationS / 60, 1)} min, sampled every ${r.intervalS} s`,
    "",
    "Latency over successful calls, by when the answer arrived; RSS of the service process (VmRSS) and the machine's",
    "1-minute load average at the end of each interval; the CPU the service used (% of one core, all threads) and the",
    "time its main thread (the event loop) was runnable but waiting for a CPU, over the interval (/proc/<pid>/stat and",
    "schedstat). A high wait with a low CPU means the service was starved by other work on the machine, not slow.",
    "",
    table(
      [
        "interval s",
        "calls",
        "OK req/s",
        "p50 ms",
        "p99 ms",
        "REST p99 ms",
        "gRPC p99 ms",
        "429 (expected)",
        "unexpected",
        "RSS MiB",
        "service CPU %",
        "main thread waiting for CPU %",
        "load 1m",
      ],
      r.intervals.map((i) => [
        `${fixed(i.fromS, 0)}-${fixed(i.toS, 0)}`,
        count(i.calls),
        fixed(i.okPerS, 1),
        ms(i.p50),
        ms(i.p99),
        ms(i.restP99),
        ms(i.grpcP99),
        count(i.throttled),
        count(i.unexpected),
        fixed(i.rssMiB, 0),
        fixed(i.cpuPct, 0),
        fixed(i.waitPct, 0),
        fixed(i.load1, 1),
      ]),
    ),
    "",
    table(
      ["stream", "req/s", "calls asked", "calls answered", "took s", "cut by time cap"],
      r.streams.map((s) => [
        s.id,
        String(s.rate),
        count(s.requested),
        count(s.answered),
        fixed(s.seconds, 0),
        s.capped ? "**yes**" : "no",
      ]),
    ),
    "",
    `Each stream sends exactly rate x ${r.durationS} calls at its rate; "took" longer than ${r.durationS} s means the service answered slower`,
    "than the stream's workers could keep the rate (the stream then fell behind rather than piling up more calls).",
    "",
    "### Answers by kind",
    "",
    table(
      ["protocol", "status", "expected", "sustained phase", "whole run (ramp included)"],
      [...statuses.values()]
        .sort((a, b) => b.all - a.all)
        .map((s) => [s.protocol, `\`${s.status}\``, s.expected ? "yes" : "**no**", count(s.sustained), count(s.all)]),
    ),
    "",
    "### Checks",
    "",
    "Reported by the run, not asserted in the CI suite (speed is never a test assertion; the smoke test asserts only",
    "zero unexpected errors and exact usage).",
    "",
    table(["check", "rule", "measured", "result"], checks),
    "",
    "### Usage reconciliation (whole run, ramp included)",
    "",
    table(
      [
        "key",
        "plan",
        "OK seen by the tools (semantic / vector / trends / leads)",
        "429 seen",
        "other",
        "`threadsight usage`: used (per operation)",
        "GET /api/v1/usage: used",
        "used = OK",
        "counted - OK",
      ],
      r.usage.map((u) => [
        u.label,
        u.plan,
        `${count(u.clientOk)} (${OPERATION_NAMES.map((op) => count(u.clientOkByOp[op])).join(" / ")})`,
        count(u.clientThrottled),
        count(u.clientOther),
        `${count(u.storeUsed)} (${OPERATION_NAMES.map((op) => count(u.storeByOp[op])).join(" / ")})`,
        count(u.rpcUsed),
        u.exact ? "yes" : "**no**",
        `${count(u.storeUsed - u.clientOk)}${u.exact ? "" : u.explainedByFailures ? " (all failed calls admitted before failing)" : " **(not explained by failed calls)**"}`,
      ]),
    ),
    "",
    "For the Pro, Starter, Lite and Free keys `used` is the quota counter (limits.sqlite) and the per-operation split the",
    "usage rows (accounts.sqlite); for Enterprise (unlimited) both are the usage rows. A call refused with 429 is counted",
    "in neither, so `used` equals the OK calls exactly while the 429 column is non-zero. A call that was admitted and then",
    "failed is counted when the failure is the client's (e.g. 504 past its deadline) and given back when it is ours (500,",
    '503), as the README\'s "What counts" says. Failed calls are unexpected errors and fail the first check, and',
    '"counted - OK" shows whether they explain the whole difference.',
    END_MARKER,
  );
  return lines.join("\n");
}

/** Puts `section` into docs/RELIABILITY.md between the markers, keeping everything else. */
export function writeLoadSection(section: string, file = path.join(PACKAGE_ROOT, "docs", "RELIABILITY.md")): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const current = existsSync(file) ? readFileSync(file, "utf8") : "# Reliability\n\n";
  const start = current.indexOf(START_MARKER);
  const end = current.indexOf(END_MARKER);
  let next: string;
  if (start >= 0 && end > start) next = current.slice(0, start) + section + current.slice(end + END_MARKER.length);
  else next = `${current.replace(/\n*$/, "\n\n")}${section}\n`;
  writeFileSync(file, next);
  return file;
}
