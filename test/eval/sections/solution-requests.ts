/**
 * Solution requests: does `lead_type == solution_request` (and "any lead") find the sentences
 * people labelled as suggestions/requests in SemEval-2019 Task 9A? The set is CC BY-NC-SA and used
 * for evaluation only: nothing is trained or tuned on it. The hand-written development sentences
 * the suggestion head's constants were chosen on are reported beside it.
 */

import type { SeedLine } from "../../../src/enrich/leads/seed-file.js";
import { readSeedFile } from "../../../src/enrich/leads/seed-file.js";
import { fmt, table } from "../format.js";
import { loadSuggestions } from "../lead-datasets.js";
import { binary } from "../metrics.js";
import type { EvalContext, EvalSection } from "../section.js";
import { labelModelClasses, leadDecisions } from "./lead-run.js";

const GOAL_F1 = 0.7;
const TASK_BEST_F1 = 0.78;
const HAND_WRITTEN = "src/enrich/leads/seeds/suggestion-dev.tsv";

/** The hand-written development lines: label 1 the class, 0 not. */
function handWritten(): SeedLine[] {
  return readSeedFile(HAND_WRITTEN);
}

export const solutionRequestSection: EvalSection = {
  id: "solution-requests",
  title: "Solution requests (SemEval-2019 Task 9A)",
  method:
    "Each SemEval-2019 9A sentence is classified as a post holding only that sentence. A solution request comes from the request cues of the rules, moved by a suggestion head trained on sentences written for the project; the set's terms allow evaluation only, so no split chose anything. Positive = labelled suggestion. The ingest classifier is the lead model, which reads these rules as features; the rule classifier's row is what ingest ran before it.",
  decisions: ["0023-requests-from-cues-and-a-head.md", "0021-lead-model.md"],
  requires: [
    "eval/solution_request_suggestion_mining_semeval2019/SubtaskA_EvaluationData_labeled.csv",
    "eval/solution_request_suggestion_mining_semeval2019/SubtaskA_Trial_Test_Labeled.csv",
  ],
  async run(ctx: EvalContext) {
    const rows: string[][] = [];
    let headline = 0;
    const sets = [
      ...(["evaluation", "trial"] as const).map((split) => {
        const data = loadSuggestions(split);
        ctx.recordData(`SemEval-2019 9A ${split}`, data.length, `${data.filter((d) => d.gold).length} suggestions`);
        return { name: split, key: `semeval-${split}`, data };
      }),
      { name: "hand-written dev", key: "suggestion-dev", data: handWritten() },
    ];
    for (const set of sets) {
      const { name, data } = set;
      const gold = data.map((d) => d.gold);
      const texts = data.map((d) => d.text);
      const decisions = await leadDecisions(set.key, texts);
      const ruleClassifier = await leadDecisions(set.key, texts, { classifier: "rules" });
      const rulesOnly = await leadDecisions(set.key, texts, { classifier: "rules", withVector: false });
      const sr = binary(
        gold,
        decisions.map((d) => d.leadType === "solution_request"),
      );
      const before = binary(
        gold,
        ruleClassifier.map((d) => d.leadType === "solution_request"),
      );
      const rules = binary(
        gold,
        rulesOnly.map((d) => d.leadType === "solution_request"),
      );
      const weak = binary(
        gold,
        labelModelClasses(texts).map((c) => c === "solution_request"),
      );
      const any = binary(
        gold,
        decisions.map((d) => d.leadType !== ""),
      );
      const all = binary(
        gold,
        gold.map(() => true),
      );
      if (name === "evaluation") headline = sr.f1;
      const n = String(data.length);
      rows.push([name, n, "lead_type == solution_request", fmt(sr.precision), fmt(sr.recall), fmt(sr.f1)]);
      rows.push([
        name,
        n,
        "the same, rule classifier (before the lead model)",
        fmt(before.precision),
        fmt(before.recall),
        fmt(before.f1),
      ]);
      rows.push([
        name,
        n,
        "the same, rules only (no suggestion head)",
        fmt(rules.precision),
        fmt(rules.recall),
        fmt(rules.f1),
      ]);
      rows.push([
        name,
        n,
        "the same, label model alone (labelling-function votes, no vector)",
        fmt(weak.precision),
        fmt(weak.recall),
        fmt(weak.f1),
      ]);
      rows.push([name, n, "any lead type", fmt(any.precision), fmt(any.recall), fmt(any.f1)]);
      rows.push([name, n, "baseline: every sentence", fmt(all.precision), fmt(all.recall), fmt(all.f1)]);
    }
    ctx.recordGoal(
      `solution_request F1 on SemEval-2019 9A evaluation >= ${GOAL_F1}`,
      fmt(headline),
      headline >= GOAL_F1,
    );
    return [
      table(["split", "n", "prediction", "precision", "recall", "F1"], rows),
      "",
      `- published reference: the task's best system reached F1 ${fmt(TASK_BEST_F1, 2)} on the evaluation split, trained on the task's labelled sentences`,
    ].join("\n");
  },
};
