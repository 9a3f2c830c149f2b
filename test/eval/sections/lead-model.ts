/**
 * The lead model (src/enrich/leads/lead-model.json, decision 0021) on the project's labelled lead
 * set: dev (where its L2, epochs and threshold were chosen) and test (only reported), beside the
 * rule classifier ingest ran before it; each veto's precision on train+dev; the dev threshold sweep.
 */
import { createLeadClassifier, VETOES, vetoOf } from "../../../src/enrich/leads/classifier.js";
import { classesAt, leadScores, predictAll } from "../../../src/enrich/leads/fit-lead-model.js";
import { compileLabelModel, voterPrecision } from "../../../src/enrich/leads/label-model.js";
import { LEAD_MODEL_CLASSES, loadLeadModel } from "../../../src/enrich/leads/lead-model.js";
import { lfVotes, VOTERS } from "../../../src/enrich/leads/lf-votes.js";
import { fmt, goal, table } from "../format.js";
import { LABELLED_CORPORA } from "../labelled-posts.js";
import { type LeadExample, loadLeadExamples } from "../lead-model-data.js";
import type { EvalContext, EvalSection } from "../section.js";

const GOAL_F1 = 0.8;
const GOAL_TYPE = 0.7;

/** The stored lead types read as the guideline's classes (advice is a solution request, comparison switching). */
const AS_CLASS: Record<string, number> = {
  "": 0,
  solution_request: 1,
  advice_request: 1,
  pain_point: 2,
  comparison: 3,
  buying_intent: 4,
};

function scoreRow(name: string, gold: readonly number[], predicted: readonly number[]): string[] {
  const s = leadScores(gold, predicted);
  return [name, String(gold.length), fmt(s.precision), fmt(s.recall), fmt(s.f1), fmt(s.typeAccuracy)];
}

async function run(ctx: EvalContext): Promise<string> {
  const file = loadLeadModel();
  const examples = await loadLeadExamples();
  const model = createLeadClassifier();
  const split = (name: string): LeadExample[] => examples.filter((e) => e.label.split === name);
  const rows: string[][] = [];
  let test = { f1: 0, typeAccuracy: 0 };
  const labelModel = compileLabelModel();
  const votes = new Map(examples.map((e) => [e, lfVotes(e.post)]));
  const argmax = (q: Float64Array): number => q.indexOf(Math.max(...q));
  for (const name of ["dev", "test"]) {
    const part = split(name);
    const gold = part.map((e) => e.gold);
    const ours = part.map((e) => AS_CLASS[model.classify(e.post, e.vector, e.sentiment).leadType]!);
    const rules = part.map((e) => AS_CLASS[e.reading.leadType]!);
    rows.push(scoreRow(`${name}: lead model`, gold, ours));
    rows.push(scoreRow(`${name}: rule classifier (before)`, gold, rules));
    rows.push(
      scoreRow(
        `${name}: label model alone (votes only, no label)`,
        gold,
        part.map((e) => argmax(labelModel.posterior(votes.get(e)!))),
      ),
    );
    rows.push(
      scoreRow(
        `${name}: baseline, every post a solution_request`,
        gold,
        gold.map(() => 1),
      ),
    );
    if (name === "test") test = leadScores(gold, ours);
  }
  ctx.recordGoal(`lead model, labelled test split: lead-vs-not F1 >= ${GOAL_F1}`, fmt(test.f1), test.f1 >= GOAL_F1);
  ctx.recordGoal(
    `lead model, labelled test split: lead-type accuracy >= ${GOAL_TYPE}`,
    fmt(test.typeAccuracy),
    test.typeAccuracy >= GOAL_TYPE,
  );

  const known = [...split("train"), ...split("dev")];
  const vetoRows = VETOES.map((v) => {
    const hit = known.filter((e) => vetoOf(e.reading) === v);
    const none = hit.filter((e) => e.gold === 0).length;
    return [v, String(hit.length), String(none), hit.length === 0 ? "-" : fmt(none / hit.length)];
  });

  // Each voter's precision as the labelled train+dev posts measure it, beside the label model's
  // estimate from the unlabelled corpus; voters that fired on fewer than five of them are left out.
  const voterRows = VOTERS.flatMap((v, j) => {
    const fired = known.filter((e) => votes.get(e)![j] === 1);
    if (fired.length < 5) return [];
    const right = fired.filter((e) => LEAD_MODEL_CLASSES[e.gold] === v.votes).length;
    return [
      [
        v.name,
        v.votes,
        String(fired.length),
        fmt(right / fired.length),
        fmt(voterPrecision(labelModel.file, j, v.votes)),
      ],
    ];
  });

  const dev = split("dev");
  const devP = predictAll(
    file.softmax,
    dev.map((e) => e.features),
  );
  const vetoed = dev.map((e) => vetoOf(e.reading) !== undefined);
  const sweep = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95].map((t) => {
    const s = leadScores(
      dev.map((e) => e.gold),
      classesAt(devP, t, vetoed),
    );
    return [
      fmt(t, 2),
      fmt(s.precision),
      fmt(s.recall),
      fmt(s.f1),
      fmt(s.typeAccuracy),
      t === file.leadThreshold ? "chosen" : "",
    ];
  });
  const h = file.hyperparameters;
  return [
    "A class-balanced softmax over the post's USE-lite vector and what the rules and labelling functions saw",
    `(${file.ruleFeatures.length} features: each intent's strength and whether it fired, the rule score and type, its veto, the`,
    "job-post / self-promotion / offer tests, the two heads, the sentiment model's tone, engagement, body, title",
    "question, the label model's class probabilities and every labelling function's vote; the feature set",
    `used, \`${file.hyperparameters.featureSet ?? "rules"}\`, was chosen on dev), classes none + the guideline's four lead types.`,
    "Fitted by `scripts/train-lead-model.ts` with the",
    `project's softmax trainer on the train split of test/eval/labels/leads.tsv (${file.provenance.trainRows} posts after the vetoes),`,
    `L2 ${h.l2}, ${h.epochs} epochs, learning rate ${h.learningRate}, batch ${h.batchSize}, seed ${h.seed}, and the lead threshold`,
    `${file.leadThreshold} on P(lead) = 1 - P(none): all chosen on dev (${h.selection}). The test split was read once,`,
    "for the figures below. Type accuracy is over the labelled leads (a missed lead counts as wrong); the rule",
    "classifier's types are read as the guideline's (advice_request as solution_request, comparison as switching).",
    "",
    table(["split: classifier", "posts", "lead-vs-not precision", "recall", "F1", "type accuracy on leads"], rows),
    "",
    `Goals on test: lead-vs-not F1 >= ${GOAL_F1}: ${fmt(test.f1)} -> ${goal(test.f1 >= GOAL_F1)}; type accuracy >= ${GOAL_TYPE}: ${fmt(test.typeAccuracy)} -> ${goal(test.typeAccuracy >= GOAL_TYPE)}.`,
    "",
    "### Vetoes",
    "",
    "The rules that still decide alone: a post they veto is not a lead whatever the model says. Precision is",
    "the share of the vetoed train+dev posts labelled none.",
    "",
    table(["veto", "train+dev posts vetoed", "labelled none", "precision"], vetoRows),
    "",
    "### Labelling functions and the label model",
    "",
    `${VOTERS.length} voters: the cues kept as data in src/enrich/leads/functions/ (one file each, with examples that`,
    "must and must not fire) and the rule tests that vote none. The label model (Dawid-Skene latent classes, EM)",
    `was fitted on their votes over ${labelModel.file.provenance.posts} unlabelled corpus posts (\`scripts/fit-label-model.ts\`); its`,
    "class probabilities and every vote are features of the lead model. Measured precision: the share of the",
    "labelled train+dev posts a voter fired on whose label is the class it votes; estimated: the label model's",
    "P(that class | the voter fired), from no label at all. Voters firing on fewer than five labelled posts are not shown.",
    "",
    table(["voter", "votes", "train+dev posts fired", "measured precision", "label-model estimate"], voterRows),
    "",
    "### Threshold on dev",
    "",
    table(["P(lead) threshold", "precision", "recall", "F1", "type accuracy", ""], sweep),
    "",
    `Classes: ${LEAD_MODEL_CLASSES.join(", ")} (switching is stored as lead_type comparison).`,
  ].join("\n");
}

/** The lead model section for `npm run eval`. */
export const leadModelSection: EvalSection = {
  id: "lead-model",
  title: "Lead model (labelled lead set, dev and test)",
  method:
    "A class-balanced softmax over the post's USE-lite vector, the rule classifier's reading of it, the votes of the labelling functions kept as data and a label model fitted on those votes over the unlabelled corpus posts; fitted on the labelled lead set's train split by `scripts/train-lead-model.ts`; feature set, regularisation, epochs and the lead-vs-not threshold are chosen on dev, and the test split is only reported, beside the rule classifier and the label model alone on the same posts.",
  decisions: ["0019-lead-labels.md", "0021-lead-model.md", "0033-labelling-functions-and-a-label-model.md"],
  requires: LABELLED_CORPORA.map(([f]) => f),
  run,
};
