/**
 * `npm run eval`: runs every evaluation section and writes docs/EVALUATION.md with the machine, the
 * data sizes and each section's markdown. Every run section is kept in a results store
 * (results-store.ts), so parts can be re-run alone and the report still shows the rest:
 *
 *   npm run eval -- --only sentiment,solution-requests   run these, store them, rewrite the report
 *   npm run eval -- --only sentiment --no-write          run and print only
 *   npm run eval -- --only report                        run nothing: rewrite the report from the store
 *
 * Each section states when it was run. Shared data comes from ../shared/data
 * (THREADSIGHT_SHARED_DATA to override). A section whose data is absent is reported as skipped, or
 * fails the run when CI or REQUIRE_DATA=1 is set.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { missingBackend } from "../harness/backend-policy.js";
import { table } from "./format.js";
import { figuresOf } from "./report-body.js";
import { loadEvalResults, readPreviousReport, type StoredEval, saveEvalResult } from "./results-store.js";
import { retrievalSection } from "./retrieval.js";
import type { EvalSection } from "./section.js";
import { aggregateThresholdSection } from "./sections/aggregate-threshold.js";
import { buyingIntentSection } from "./sections/buying-intent.js";
import { enrichmentCostSection } from "./sections/enrichment-cost.js";
import { industrySection } from "./sections/industry.js";
import { leadLabelsSection } from "./sections/lead-labels.js";
import { leadModelSection } from "./sections/lead-model.js";
import { leadsFloorSection } from "./sections/leads-floor.js";
import { leadsPrecisionSection } from "./sections/leads-precision.js";
import { painPointSection } from "./sections/pain-points.js";
import { sentimentSection } from "./sections/sentiment.js";
import { solutionRequestSection } from "./sections/solution-requests.js";
import { summarySection } from "./sections/summary.js";
import { targetProductSection } from "./sections/target-product.js";
import { trendsHnSection } from "./sections/trends-hn.js";
import { trendsRedditSection } from "./sections/trends-reddit.js";
import { hasData, SHARED_DATA } from "./shared-data.js";

/** Every section, in report order. */
export const SECTIONS: readonly EvalSection[] = [
  sentimentSection,
  solutionRequestSection,
  painPointSection,
  buyingIntentSection,
  targetProductSection,
  industrySection,
  leadLabelsSection,
  leadModelSection,
  enrichmentCostSection,
  retrievalSection,
  aggregateThresholdSection,
  leadsFloorSection,
  leadsPrecisionSection,
  summarySection,
  trendsHnSection,
  trendsRedditSection,
];

function options(): { only: string[]; write: boolean } {
  const { values, positionals } = parseArgs({
    options: { only: { type: "string" }, "no-write": { type: "boolean", default: false } },
    allowPositionals: true,
  });
  // Bare section ids (the older form) still select sections, and then only print.
  const only = [...(values.only ?? "").split(","), ...positionals].map((x) => x.trim()).filter(Boolean);
  const unknown = only.filter((id) => id !== "report" && !SECTIONS.some((s) => s.id === id));
  if (unknown.length > 0) {
    throw new Error(`unknown section(s) ${unknown.join(", ")}; known: ${SECTIONS.map((s) => s.id).join(", ")}, report`);
  }
  return { only, write: values["no-write"] !== true && positionals.length === 0 };
}

async function runSection(section: EvalSection): Promise<StoredEval> {
  const started = Date.now();
  const ranAt = new Date(started).toISOString();
  process.stderr.write(`eval: ${section.id}...\n`);
  const goals: string[][] = [];
  const data: string[][] = [];
  const missing = section.requires.filter((r) => !hasData(r));
  let body: string;
  if (missing.length > 0) {
    body = `Skipped: ${missingBackend("data", `${missing.join(", ")} not found under ${SHARED_DATA}`)}`;
  } else {
    body = await section.run({
      recordData: (name, rows, note) => data.push([name, String(rows), note]),
      recordGoal: (name, ours, met) =>
        goals.push([name, ours, met === undefined ? "no target" : met ? "met" : "**not met**"]),
    });
  }
  const durationS = Math.round((Date.now() - started) / 1000);
  process.stderr.write(`eval: ${section.id} done in ${durationS} s\n`);
  // Sections are re-run one at a time, on whatever machine is at hand, so each names its own.
  return {
    ranAt,
    durationS,
    machine: machineLine(),
    body: `Run: ${ranAt} (${durationS} s) on ${machineLine()}.\n\n${body}`,
    goals,
    data,
  };
}

/** One row of the Runs table from a section body's first line ("Run: <ISO> (<n> s) on <machine>."). */
function runRow(title: string, body: string): string[] {
  const m = /^Run: (\S+) \((\d+) s\)(?: on (.+?))?\.?$/m.exec(body);
  if (!m) return [title, "not recorded", "-", "not recorded"];
  return [title, (m[1] ?? "").slice(0, 16).replace("T", " "), `${m[2]} s`, m[3] ?? "not recorded"];
}

/** One section of the report: when and where it ran, its method note, its decisions and its figures. */
function sectionPart(section: EvalSection, entry: StoredEval | undefined, body: string): string {
  const ran = entry
    ? `Measured ${entry.ranAt.slice(0, 16).replace("T", " ")} UTC (${entry.durationS} s) on ${entry.machine ?? "a machine not recorded"}.`
    : "Carried over from an earlier report: when and where it ran is not recorded.";
  const links = section.decisions.map((d) => `[${d.replace(/\.md$/, "")}](decisions/${d})`).join(", ");
  return [
    `## ${section.title}`,
    "",
    ran,
    "",
    `Method: ${section.method}`,
    "",
    `How the figures were reached: ${links}.`,
    "",
    figuresOf(body),
    "",
  ].join("\n");
}

function machineLine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.platform()} ${os.release()}`;
}

async function main(): Promise<void> {
  const { only, write } = options();
  const reportOnly = only.length > 0 && only.every((id) => id === "report");
  const chosen = only.length === 0 ? SECTIONS : SECTIONS.filter((s) => only.includes(s.id));
  const fresh = new Map<string, StoredEval>();
  for (const section of chosen) {
    const result = await runSection(section);
    fresh.set(section.id, result);
    if (write) saveEvalResult(section.id, result);
  }

  const out = path.join(PACKAGE_ROOT, "docs", "EVALUATION.md");
  const stored = write ? loadEvalResults() : Object.fromEntries(fresh);
  const previous = write ? readPreviousReport(out) : { bodies: new Map<string, string>(), goals: [], data: [] };
  const shown = SECTIONS.filter((s) => stored[s.id] !== undefined || previous.bodies.has(s.title));
  const claimed = (rows: readonly string[][]) => new Set(rows.map((r) => r[0]));
  // Each goal row names the machine and day of the section that measured it.
  const stamped = (id: string, row: readonly string[]): string[] => {
    const e = stored[id];
    return [...row, e?.machine ?? "not recorded", e ? e.ranAt.slice(0, 10) : "not recorded"];
  };
  const storedGoals = shown.flatMap((s) => (stored[s.id]?.goals ?? []).map((g) => stamped(s.id, g)));
  const storedData = shown.flatMap((s) => stored[s.id]?.data ?? []);
  // Rows of sections carried over from the earlier report (no stored run yet) are kept as they were.
  const goals = [
    ...storedGoals,
    ...previous.goals
      .filter((r) => !claimed(storedGoals).has(r[0]))
      .map((r) => [...r.slice(0, 3), "not recorded", "not recorded"]),
  ];
  const data = [...storedData, ...previous.data.filter((r) => !claimed(storedData).has(r[0]))];
  const bodyOf = (s: EvalSection): string => stored[s.id]?.body ?? previous.bodies.get(s.title) ?? "";
  const parts = shown.map((s) => sectionPart(s, stored[s.id], bodyOf(s)));
  const runs = shown.map((s) => runRow(s.title, bodyOf(s)));

  const report = [
    "# Evaluation",
    "",
    "Generated by `npm run eval` (test/eval/run.ts) from the stored results (docs/evaluation.json); nothing here is",
    "typed by hand. Each section gives its method in a few sentences and its figures as tables; how each figure",
    "was reached (what was tried, kept and rejected) is in the decision records each section links to.",
    "Only the enrichment cost section measures speed; the others' figures do not depend on the machine.",
    "",
    "How to re-run:",
    "",
    "- `npm run eval -- --only <ids>` runs those sections, stores them and rewrites this file",
    `  (ids: ${SECTIONS.map((s) => s.id).join(", ")});`,
    "- `npm run eval -- --only report` runs nothing and rewrites this file from the store;",
    "- `npm run eval -- --only <ids> --no-write` runs and prints, storing nothing.",
    "",
    "Data is read from the shared, openly licensed sets under the data root (`THREADSIGHT_SHARED_DATA`, default",
    "`../shared/data`) and never copied into the repository.",
    "",
    `- Written: ${new Date().toISOString()}`,
    reportOnly
      ? "- Machine of this run: none (`--only report` rewrote the report from stored sections)"
      : `- Machine of this run: ${machineLine()}`,
    `- Node ${process.version}`,
    "",
    "Where we stand:",
    "",
    table(["goal", "ours", "", "machine", "date (UTC)"], goals),
    "",
    "When and where each section ran (from its Run line):",
    "",
    table(["section", "run at (UTC)", "took", "machine"], runs),
    "",
    "Data used:",
    "",
    table(["set", "rows", "note"], data),
    "",
    ...parts,
  ].join("\n");
  if (!write) {
    process.stdout.write(report);
    return;
  }
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, report);
  process.stderr.write(`eval: wrote ${out}\n`);
}

await main();
