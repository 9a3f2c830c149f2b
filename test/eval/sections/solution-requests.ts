/**
 * Solution requests: does `lead_type == solution_request` (and "any lead") find the sentences
 * people labelled as suggestions/requests in SemEval-2019 Task 9A? The set is CC BY-NC-SA and used
 * for evaluation only: nothing is trained or tuned on it. The hand-written development sentences
 * the suggestion head's constants were chosen on are reported beside it.
 */
import { SUGGESTION_PULL } from "../../../src/enrich/leads/classifier.js";
import { loadLeadHead } from "../../../src/enrich/leads/heads.js";
import type { SeedLine } from "../../../src/enrich/leads/seed-file.js";
import { readSeedFile } from "../../../src/enrich/leads/seed-file.js";
import { fmt, goal, table } from "../format.js";
import { loadSuggestions } from "../lead-datasets.js";
import { binary } from "../metrics.js";
import type { EvalContext, EvalSection } from "../section.js";
import { leadDecisions } from "./lead-run.js";

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
    "Each SemEval-2019 9A sentence is classified as a post holding only that sentence. A solution request comes from the request cues of the rules, moved by a suggestion head trained on sentences written for the project; the set's terms allow evaluation only, so no split chose anything. Positive = labelled suggestion.",
  decisions: ["0023-requests-from-cues-and-a-head.md"],
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
      const rulesOnly = await leadDecisions(set.key, texts, {}, false);
      const sr = binary(
        gold,
        decisions.map((d) => d.leadType === "solution_request"),
      );
      const rules = binary(
        gold,
        rulesOnly.map((d) => d.leadType === "solution_request"),
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
        "the same, rules only (no suggestion head)",
        fmt(rules.precision),
        fmt(rules.recall),
        fmt(rules.f1),
      ]);
      rows.push([name, n, "any lead type", fmt(any.precision), fmt(any.recall), fmt(any.f1)]);
      rows.push([name, n, "baseline: every sentence", fmt(all.precision), fmt(all.recall), fmt(all.f1)]);
    }
    const head = loadLeadHead("suggestion");
    ctx.recordGoal(
      `solution_request F1 on SemEval-2019 9A evaluation >= ${GOAL_F1}`,
      fmt(headline),
      headline >= GOAL_F1,
    );
    return [
      "Each sentence is classified as a post with the sentence as its body and its USE-lite vector, as at",
      "ingest. Positive = labelled 1 (suggestion). `solution_request` comes from the rules (signals.ts: cues",
      "written from general request phrasing and the reddit corpus) moved by a suggestion head: logistic",
      `regression over the embedding, trained by \`scripts/train-lead-heads.ts\` on ${head.provenance.rows} sentences written by hand for the`,
      `project (\`${String(head.provenance.data)}\`, ${head.provenance.positives} asks; ${head.provenance.selection}: ${fmt(Number(head.provenance.crossValidatedF1))}).`,
      `A cue's strength moves by ${SUGGESTION_PULL} x (P(suggestion) - 0.5), a constant chosen on the hand-written dev`,
      `sentences (\`${HAND_WRITTEN}\`, separate from the training seeds); the head never makes a request without`,
      "a cue. The rules' misses on the hand-written sentences (seed and dev files) were read to add general",
      'request phrasings ("would it be possible to", "how about adding", "anyone know a tool", ...), so the',
      "hand-written dev row is optimistic. No SemEval sentence was read and no split chose anything: the set is",
      "CC BY-NC-SA and its terms allow evaluation only. Full disclosure of how often the evaluation split was",
      "run during this work: (1) first head version, which also called short posts with no cue requests",
      "(F1 0.414: recall 0.93, precision 0.27); its no-cue calls were then read on unlabelled reddit sentences,",
      "were mostly advice questions or statements, and that rule was dropped; (2) without it (F1 0.497);",
      "(3) after the phrasing cues above and more hand-written seeds (0.601); (4) after a cue for conditional",
      'suggestions ("if the launcher showed recent files I would use it", found on the hand-written dev',
      "sentences), which changes no SemEval prediction: checked by comparing the predictions, not the",
      'scores, before that run; (5) on 2026-11-25, after buying-intent cues stopped reading "get a job" or',
      '"get a degree" as a purchase, which changes no evaluation-split prediction and one trial sentence',
      "(buying_intent to none), again checked on the predictions before this run; (6) on 2026-11-28, after the",
      "sentiment model was retrained (see Sentiment: typographic apostrophes), checked the same way: no",
      "solution_request prediction changed on either split, and six evaluation and two trial sentences went from",
      'pain_point to no lead, which moves only the "any lead type" rows (the figures below).',
      "Earlier rule versions looked at the trial split's aggregate P/R/F1 only.",
      "",
      table(["split", "n", "prediction", "precision", "recall", "F1"], rows),
      "",
      `Goal F1 >= ${GOAL_F1} on the evaluation split (solution_request): ${fmt(headline)} -> ${goal(headline >= GOAL_F1)}.`,
      `Published reference: the task's best system reached F1 ${TASK_BEST_F1} on this evaluation set (trained on the`,
      "task's 8,500 labelled training sentences, which our use of the set does not allow).",
      "",
      "The trial split is half suggestions, the evaluation split a tenth, so the same classifier loses much",
      "of its precision there. The domain also differs from ours: these are feature requests to a vendor",
      'in a developer feedback forum ("please add...", "it would be nice if...").',
    ].join("\n");
  },
};
