/**
 * `npm run eval`: runs every evaluation section and writes docs/EVALUATION.md with the date, the
 * machine, the data sizes and each section's markdown. `node dist/test/eval/run.js sentiment cost`
 * runs only the named sections and prints them without touching the file.
 *
 * Shared data comes from ../shared/data (THREADSIGHT_SHARED_DATA to override). A section whose data
 * is absent is reported as skipped, or fails the run when CI or REQUIRE_DATA=1 is set.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { missingBackend } from "../harness/backend-policy.js";
import { table } from "./format.js";
import { retrievalSection } from "./retrieval.js";
import type { EvalSection } from "./section.js";
import { buyingIntentSection } from "./sections/buying-intent.js";
import { enrichmentCostSection } from "./sections/enrichment-cost.js";
import { painPointSection } from "./sections/pain-points.js";
import { sentimentSection } from "./sections/sentiment.js";
import { solutionRequestSection } from "./sections/solution-requests.js";
import { hasData, SHARED_DATA } from "./shared-data.js";

/** Every section, in report order. Add retrieval and trends here. */
export const SECTIONS: readonly EvalSection[] = [
  sentimentSection,
  solutionRequestSection,
  painPointSection,
  buyingIntentSection,
  enrichmentCostSection,
  retrievalSection,
];

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const unknown = only.filter((id) => !SECTIONS.some((s) => s.id === id));
  if (unknown.length > 0) {
    throw new Error(`unknown section(s) ${unknown.join(", ")}; known: ${SECTIONS.map((s) => s.id).join(", ")}`);
  }
  const chosen = only.length === 0 ? SECTIONS : SECTIONS.filter((s) => only.includes(s.id));
  const data: string[][] = [];
  const goals: string[][] = [];
  const parts: string[] = [];
  for (const section of chosen) {
    const started = Date.now();
    process.stderr.write(`eval: ${section.id}...\n`);
    const missing = section.requires.filter((r) => !hasData(r));
    let body: string;
    if (missing.length > 0) {
      body = `Skipped: ${missingBackend("data", `${missing.join(", ")} not found under ${SHARED_DATA}`)}`;
    } else {
      body = await section.run({
        recordData: (name, rows, note) => data.push([name, String(rows), note]),
        recordGoal: (name, ours, met) => goals.push([name, ours, met === undefined ? "no target" : met ? "met" : "**not met**"]),
      });
    }
    parts.push(`## ${section.title}\n\n${body}\n`);
    process.stderr.write(`eval: ${section.id} done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
  const cpus = os.cpus();
  const report = [
    "# Evaluation",
    "",
    "Written by `npm run eval` (test/eval/run.ts); every figure below comes from that run. Data is read",
    "from the shared, openly licensed sets in `../shared/data` and never copied into the repository.",
    "",
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.platform()} ${os.release()}`,
    `- Node ${process.version}`,
    "",
    "Where we stand:",
    "",
    table(["goal", "ours", ""], goals),
    "",
    "Data used:",
    "",
    table(["set", "rows", "note"], data),
    "",
    ...parts,
  ].join("\n");
  if (only.length > 0) {
    process.stdout.write(report);
    return;
  }
  const out = path.join(PACKAGE_ROOT, "docs", "EVALUATION.md");
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, report);
  process.stderr.write(`eval: wrote ${out}\n`);
}

await main();
