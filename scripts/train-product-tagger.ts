/**
 * Trains the product tagger (src/enrich/leads/products/tagger-model.json) on the leads of the
 * train split of the labelled lead set (test/eval/labels/leads.tsv) and chooses the number of
 * passes and the span threshold on its dev split, scoring findTargetProduct as ingest runs it
 * (rules first, the tagger when they name nothing). The test split is not read. Deterministic.
 *
 * Run: nice -n 10 node --import tsx scripts/train-product-tagger.ts
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { findTargetProduct } from "../src/enrich/leads/product.js";
import { TAGS } from "../src/enrich/leads/products/tagger.js";
import type { TaggerModelFile } from "../src/enrich/leads/products/tagger-model.js";
import { trainTagger } from "../src/enrich/leads/products/train-tagger.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { loadTargetExamples, type TargetExample, taggerExample } from "../test/eval/product-tagger-data.js";
import { sameTargetAliased } from "../test/eval/same-target.js";

/** The candidates tried on dev. */
export const EPOCHS = [2, 3, 5, 8];
export const SEED = 7;
const THRESHOLDS = Array.from({ length: 41 }, (_, i) => i * 0.25);

const f = (x: number): string => x.toFixed(3);

/** P / R / F1 of findTargetProduct with `weights` at `threshold` over `set` (all labelled leads, so all have a target). */
function score(set: readonly TargetExample[], weights: Map<string, number[]>, threshold: number) {
  let tp = 0;
  let answered = 0;
  for (const e of set) {
    const name = findTargetProduct(e.sentences, e.focus, undefined, { taggerModel: { weights, threshold } }).name;
    if (name === "") continue;
    answered++;
    if (sameTargetAliased(name, e.label.targetProduct)) tp++;
  }
  const p = tp / Math.max(1, answered);
  const r = tp / Math.max(1, set.length);
  return { p, r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r) };
}

const examples = await loadTargetExamples();
const train = examples.filter((e) => e.label.split === "train");
const dev = examples.filter((e) => e.label.split === "dev");
const rulesOnly = (set: readonly TargetExample[]) => {
  let tp = 0;
  let answered = 0;
  for (const e of set) {
    const name = findTargetProduct(e.sentences, e.focus, undefined, { tagger: false }).name;
    if (name === "") continue;
    answered++;
    if (sameTargetAliased(name, e.label.targetProduct)) tp++;
  }
  return { tp, answered };
};
const base = rulesOnly(dev);
process.stdout.write(
  `train ${train.length} leads, dev ${dev.length}; rules alone on dev: ${base.tp} right of ${base.answered} answered\n`,
);

let chosen: { epochs: number; threshold: number; weights: Map<string, number[]>; f1: number } | undefined;
for (const epochs of EPOCHS) {
  const weights = trainTagger(train.map(taggerExample), { epochs, seed: SEED });
  for (const threshold of THRESHOLDS) {
    const s = score(dev, weights, threshold);
    if (chosen === undefined || s.f1 > chosen.f1 + 1e-9) chosen = { epochs, threshold, weights, f1: s.f1 };
  }
  const best = THRESHOLDS.map((t) => [t, score(dev, weights, t)] as const).reduce((a, b) =>
    b[1].f1 > a[1].f1 ? b : a,
  );
  process.stdout.write(
    `epochs ${epochs}: ${weights.size} weights; best on dev at threshold ${best[0]}: P ${f(best[1].p)} R ${f(best[1].r)} F1 ${f(best[1].f1)}\n`,
  );
}
const c = chosen!;
const file: TaggerModelFile = {
  tags: [...TAGS],
  threshold: c.threshold,
  epochs: c.epochs,
  seed: SEED,
  trainedOn: `the ${train.length} leads of the train split of test/eval/labels/leads.tsv; ${c.epochs} passes, seed ${SEED}; passes and threshold chosen on dev (F1 ${f(c.f1)})`,
  weights: Object.fromEntries(c.weights),
};
const out = path.join(PACKAGE_ROOT, "src", "enrich", "leads", "products", "tagger-model.json");
writeFileSync(out, `${JSON.stringify(file)}\n`);
process.stdout.write(`chose ${c.epochs} passes, threshold ${c.threshold}; wrote ${out}\n`);
