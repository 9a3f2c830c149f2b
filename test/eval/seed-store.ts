/**
 * Moves an EVALUATION.md written before docs/evaluation.json existed into the results store, so
 * the report is rendered from stored sections: each section's body under its heading, its run
 * date, duration and machine from its Run line, and the summary rows it recorded (attributed by
 * the set or goal each row names). Sections already stored are left alone; nothing is run.
 *
 *   node --import tsx test/eval/seed-store.ts
 */
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { loadEvalResults, readPreviousReport, saveEvalResult } from "./results-store.js";
import { retrievalSection } from "./retrieval.js";
import type { EvalSection } from "./section.js";
import { aggregateThresholdSection } from "./sections/aggregate-threshold.js";
import { buyingIntentSection } from "./sections/buying-intent.js";
import { enrichmentCostSection } from "./sections/enrichment-cost.js";
import { industrySection } from "./sections/industry.js";
import { painPointSection } from "./sections/pain-points.js";
import { sentimentSection } from "./sections/sentiment.js";
import { solutionRequestSection } from "./sections/solution-requests.js";
import { summarySection } from "./sections/summary.js";
import { targetProductSection } from "./sections/target-product.js";
import { trendsHnSection } from "./sections/trends-hn.js";
import { trendsRedditSection } from "./sections/trends-reddit.js";

const SECTIONS: readonly EvalSection[] = [
  sentimentSection,
  solutionRequestSection,
  painPointSection,
  buyingIntentSection,
  targetProductSection,
  industrySection,
  enrichmentCostSection,
  retrievalSection,
  aggregateThresholdSection,
  summarySection,
  trendsHnSection,
  trendsRedditSection,
];

/** Which section recorded a summary row, by the goal or data set its first cell names. */
const OWNER: readonly [RegExp, string][] = [
  [/^AggregatePosts threshold|^SemEval-2016 3B judged pairs/, "aggregate-threshold"],
  [/^ai_summary|summaries$|^summary examples/, "summary"],
  [/^sentiment|^GoEmotions|^TweetEval|^Sentiment140|^VADER/, "sentiment"],
  [/^solution_request|^SemEval-2019 9A/, "solution-requests"],
  [/^pain-point|^Complaints tweets/, "pain-points"],
  [/^buying intent|^Buying-intent tweets/i, "buying-intent"],
  [/^target_product|^Target-product labels/, "target-product"],
  [/^industry|^Industry labels/i, "industry"],
  [/^enrichment|^Reddit posts for cost/, "cost"],
  [/^SemEval-2016 T3 subtask B (related threads|queries)/, "retrieval"],
  [/^Hacker News 2015-2016/, "trends-hn"],
  [/^reddit top 2013/, "trends-reddit"],
];

function ownerOf(row: readonly string[]): string {
  const hit = OWNER.find(([re]) => re.test(row[0] ?? ""));
  if (!hit) throw new Error(`no section owns the summary row "${row[0]}"; add it to OWNER`);
  return hit[1];
}

const report = readPreviousReport(path.join(PACKAGE_ROOT, "docs", "EVALUATION.md"));
const stored = loadEvalResults();
for (const section of SECTIONS) {
  const body = report.bodies.get(section.title);
  if (stored[section.id] !== undefined || body === undefined) continue;
  const run = /^Run: (\S+) \((\d+) s\)(?: on (.+?))?\.?$/m.exec(body);
  if (!run) throw new Error(`section "${section.title}" has no Run line`);
  saveEvalResult(section.id, {
    ranAt: run[1]!,
    durationS: Number(run[2]),
    machine: run[3] ?? "not recorded",
    body,
    goals: report.goals.filter((r) => ownerOf(r) === section.id).map((r) => r.slice(0, 3)),
    data: report.data.filter((r) => ownerOf(r) === section.id),
  });
  process.stderr.write(`seeded ${section.id} (${run[1]})\n`);
}
