/**
 * Trains the lead heads committed as src/enrich/leads/<head>-model.json (see heads.ts): logistic
 * regression over a text's USE-lite embedding, one per head.
 *   suggestion: seeds/suggestion-seeds.tsv, 1 = asks for a change, a feature or a recommendation
 *   complaint:  seeds/complaint-seeds.tsv,  1 = complains about a product, service or company
 *
 * Data: only those seed files, sentences written by hand for this project (see their headers). No
 * labelled set from ../shared/data is read: SemEval-2019 Task 9 is evaluation-only, and the
 * complaints tweets are for measuring. The L2 penalty is chosen by 5-fold cross-validation on the
 * seeds; the final model is fitted on all of them.
 *
 * Run: nice -n 10 node --import tsx scripts/train-lead-heads.ts   (embeddings are cached under /tmp)
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { LEAD_HEADS, type LeadHead, type LeadHeadFile } from "../src/enrich/leads/heads.js";
import { readSeedFile } from "../src/enrich/leads/seed-file.js";
import { type SoftmaxModel, softmaxProba } from "../src/enrich/sentiment/softmax.js";
import { trainSoftmax } from "../src/enrich/sentiment/train-softmax.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { CACHE_MODEL, embedCached } from "../test/eval/embedding-cache.js";
import { binary } from "../test/eval/metrics.js";

const FOLDS = 5;

function round(v: number): number {
  return Number(v.toPrecision(5));
}

async function trainHead(head: LeadHead): Promise<void> {
  const seedsFile = `src/enrich/leads/seeds/${head}-seeds.tsv`;
  const seeds = readSeedFile(seedsFile).map((l) => ({ text: l.text, y: l.gold ? 1 : 0 }));
  const vectors = await embedCached(
    `${head}-seeds`,
    seeds.map((s) => s.text),
  );
  const x = vectors.map((v) => Float64Array.from(v));
  const y = seeds.map((s) => s.y);
  const positives = y.filter((v) => v === 1).length;
  const classWeights = [seeds.length / (2 * (seeds.length - positives)), seeds.length / (2 * positives)];
  const fit = (rows: Float64Array[], labels: number[], l2: number): SoftmaxModel =>
    trainSoftmax(rows, labels, {
      classes: ["other", head],
      classWeights,
      l2,
      epochs: 200,
      batchSize: 32,
      learningRate: 0.003,
      seed: 11,
    });

  const p = new Float64Array(2);
  let best = { l2: 0, f1: -1 };
  for (const l2 of [1e-3, 1e-2, 3e-2, 1e-1, 3e-1]) {
    const predicted: boolean[] = new Array<boolean>(seeds.length);
    for (let f = 0; f < FOLDS; f++) {
      const trainIdx = seeds.map((_, i) => i).filter((i) => i % FOLDS !== f);
      const model = fit(
        trainIdx.map((i) => x[i]!),
        trainIdx.map((i) => y[i]!),
        l2,
      );
      seeds.forEach((_, i) => {
        if (i % FOLDS === f) predicted[i] = softmaxProba(model, x[i]!, p)[1]! >= 0.5;
      });
    }
    const r = binary(
      y.map((v) => v === 1),
      predicted,
    );
    console.log(`${head} l2=${l2}: 5-fold P ${r.precision.toFixed(3)} R ${r.recall.toFixed(3)} F1 ${r.f1.toFixed(3)}`);
    if (r.f1 > best.f1) best = { l2, f1: r.f1 };
  }

  const model = fit(x, y, best.l2);
  const file: LeadHeadFile = {
    format: "threadsight-lead-head-v1",
    head,
    embeddingModel: CACHE_MODEL,
    dimensions: 512,
    provenance: {
      data: seedsFile,
      origin: "sentences written by hand for this project; no external dataset",
      rows: seeds.length,
      positives,
      selection: `L2 by ${FOLDS}-fold cross-validation F1 on the seeds`,
      crossValidatedF1: round(best.f1),
      trainer: "scripts/train-lead-heads.ts",
      trainedAt: new Date().toISOString().slice(0, 10),
    },
    l2: best.l2,
    softmax: {
      classes: model.classes,
      mean: model.mean.map(round),
      std: model.std.map(round),
      weights: model.weights.map((row) => row.map(round)),
      bias: model.bias.map(round),
    },
  };
  const out = path.join(PACKAGE_ROOT, `src/enrich/leads/${head}-model.json`);
  writeFileSync(out, `${JSON.stringify(file)}\n`);
  console.log(`wrote ${out}: l2 ${best.l2}, cross-validated F1 ${best.f1.toFixed(3)}`);
}

for (const head of LEAD_HEADS) await trainHead(head);
