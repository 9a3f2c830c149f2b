/**
 * Trains the lead model (src/enrich/leads/lead-model.json) on the train split of the project's
 * labelled lead set (test/eval/labels/leads.tsv) and chooses the L2 penalty and the lead-vs-not
 * threshold on its dev split; the test split is not read. Prints each veto's precision on
 * train+dev and the dev figures of every candidate.
 *
 * Run: nice -n 10 node --import tsx scripts/train-lead-model.ts   (embeddings are cached under /tmp)
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { vetoOf } from "../src/enrich/leads/classifier.js";
import {
  bestThreshold,
  fitLeadModel,
  type LeadFitOptions,
  type LeadScores,
  predictAll,
} from "../src/enrich/leads/fit-lead-model.js";
import { RULE_FEATURES } from "../src/enrich/leads/lead-features.js";
import { checkLeadModel, LEAD_MODEL_CLASSES, type LeadModelFile } from "../src/enrich/leads/lead-model.js";
import type { SoftmaxModel } from "../src/enrich/sentiment/softmax.js";
import { USE_MODEL_ID } from "../src/enrich/use-embedder.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { type LeadExample, loadLeadExamples } from "../test/eval/lead-model-data.js";
import { loadWeakExamples } from "../test/eval/weak-lead-data.js";

/**
 * Weak supervision tried on dev: corpus posts the label model is confident about (per class at
 * most WEAK_PER_CLASS, P >= WEAK_CONFIDENCE) added to the train rows with its class as label.
 */
const WEAK_PER_CLASS = 800;
const WEAK_CONFIDENCE = 0.9;

/** The candidates tried on dev: the L2 penalty and the number of epochs (early stopping regularises too). */
const L2 = [0.03, 0.1, 0.3];
const EPOCHS = [10, 20, 40];

/**
 * Feature sets tried on dev: a feature left out is held at 0, which the standardised softmax
 * gives no weight. "rules": the rule reading (the model before labelling functions); "rules+label
 * model": that and the label model's class probabilities; "votes": the
 * label model and the functions' votes instead of the rule reading's strengths, type and
 * rejection; "all": both.
 */
const RULE_READING = /^(?:strength|fires|rule)\./;
const LF_FEATURES = /^(?:label_model|vote)\./;
const FEATURE_SETS: Record<string, (name: string) => boolean> = {
  rules: (n) => !LF_FEATURES.test(n),
  "rules+label model": (n) => !n.startsWith("vote."),
  votes: (n) => !RULE_READING.test(n),
  all: () => true,
};

/** `rows` with the features a set leaves out set to 0 (the vector is always kept). */
function only(rows: readonly Float64Array[], keep: (name: string) => boolean): Float64Array[] {
  const dims = rows[0]!.length - RULE_FEATURES.length;
  const drop = RULE_FEATURES.flatMap((n, i) => (keep(n) ? [] : [dims + i]));
  return rows.map((r) => {
    const out = r.slice();
    for (const i of drop) out[i] = 0;
    return out;
  });
}
const BASE: Omit<LeadFitOptions, "l2" | "epochs"> = { batchSize: 32, learningRate: 0.001, seed: 11 };

const f = (x: number): string => x.toFixed(3);

function vetoPrecision(examples: readonly LeadExample[]): void {
  const byVeto = new Map<string, { n: number; none: number }>();
  for (const e of examples) {
    const v = vetoOf(e.reading);
    if (v === undefined) continue;
    const c = byVeto.get(v) ?? { n: 0, none: 0 };
    c.n++;
    if (e.gold === 0) c.none++;
    byVeto.set(v, c);
  }
  for (const [v, c] of byVeto)
    process.stdout.write(`veto ${v}: ${c.none}/${c.n} labelled none (precision ${f(c.none / c.n)})\n`);
}

const examples = await loadLeadExamples();
const train = examples.filter((e) => e.label.split === "train");
const dev = examples.filter((e) => e.label.split === "dev");
process.stdout.write(`train ${train.length}, dev ${dev.length}\n`);
vetoPrecision([...train, ...dev]);

// Vetoed posts never reach the model at ingest, so it is fitted without them.
const fitRows = train.filter((e) => vetoOf(e.reading) === undefined);
const devVetoed = dev.map((e) => vetoOf(e.reading) !== undefined);
let chosen:
  | { set: string; l2: number; epochs: number; model: SoftmaxModel; threshold: number; scores: LeadScores }
  | undefined;
const weak = await loadWeakExamples(WEAK_PER_CLASS, WEAK_CONFIDENCE);
process.stdout.write(
  `weak rows: ${weak.length} (${LEAD_MODEL_CLASSES.map((c, i) => `${c} ${weak.filter((w) => w.gold === i).length}`).join(", ")})\n`,
);
const candidates = [
  ...Object.entries(FEATURE_SETS).map(([set, keep]) => ({ set, keep, extra: [] as typeof weak })),
  ...["rules", "rules+label model"].map((set) => ({
    set: `${set} + weak labels`,
    keep: FEATURE_SETS[set]!,
    extra: weak,
  })),
];
for (const { set, keep, extra } of candidates) {
  const x = only([...fitRows.map((e) => e.features), ...extra.map((w) => w.features)], keep);
  const y = [...fitRows.map((e) => e.gold), ...extra.map((w) => w.gold)];
  const devX = only(
    dev.map((e) => e.features),
    keep,
  );
  for (const l2 of L2)
    for (const epochs of EPOCHS) {
      const model = fitLeadModel(x, y, { ...BASE, l2, epochs });
      const { threshold, scores } = bestThreshold(
        dev.map((e) => e.gold),
        predictAll(model, devX),
        devVetoed,
      );
      process.stdout.write(
        `${set}, l2 ${l2}, ${epochs} epochs: dev threshold ${threshold} P ${f(scores.precision)} R ${f(scores.recall)} F1 ${f(scores.f1)} type ${f(scores.typeAccuracy)}\n`,
      );
      // Both goals count: lead-vs-not F1 and type accuracy, equally.
      const value = scores.f1 + scores.typeAccuracy;
      if (!chosen || value > chosen.scores.f1 + chosen.scores.typeAccuracy + 1e-12)
        chosen = { set, l2, epochs, model, threshold, scores };
    }
}
const c = chosen!;
const round = (x: number): number => Number(x.toPrecision(6));
const file: LeadModelFile = checkLeadModel({
  format: "threadsight-lead-model-v1",
  embeddingModel: USE_MODEL_ID,
  dimensions: train[0]!.vector.length,
  ruleFeatures: [...RULE_FEATURES],
  leadThreshold: c.threshold,
  provenance: {
    data: "test/eval/labels/leads.tsv (hand labels of this project, guideline LEADS-GUIDELINE.md)",
    trainRows: fitRows.length,
    weakRows: c.set.endsWith("weak labels") ? weak.length : 0,
    trainVetoed: train.length - fitRows.length,
    selectionData: "dev split only (L2 and threshold); the test split is not read",
    trainer: "scripts/train-lead-model.ts",
    devPrecision: round(c.scores.precision),
    devRecall: round(c.scores.recall),
    devF1: round(c.scores.f1),
    devTypeAccuracy: round(c.scores.typeAccuracy),
  },
  hyperparameters: {
    ...BASE,
    featureSet: c.set,
    l2: c.l2,
    epochs: c.epochs,
    classWeights: "balanced (inverse class frequency)",
    selection: "dev lead-vs-not F1 + dev type accuracy",
  },
  softmax: {
    classes: c.model.classes,
    mean: c.model.mean.map(round),
    std: c.model.std.map(round),
    weights: c.model.weights.map((r) => r.map(round)),
    bias: c.model.bias.map(round),
  },
});
const out = path.join(PACKAGE_ROOT, "src", "enrich", "leads", "lead-model.json");
writeFileSync(out, `${JSON.stringify(file)}\n`);
process.stdout.write(
  `chose ${c.set}, l2 ${c.l2}, ${c.epochs} epochs, threshold ${c.threshold}; wrote ${path.relative(PACKAGE_ROOT, out)}\n`,
);
