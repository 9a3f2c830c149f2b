/**
 * Trains the sentiment model committed as src/enrich/sentiment/model.json.
 *
 * Data: GoEmotions (Demszky et al. 2020, Apache-2.0), `group` mapping, read from
 * ../shared/data/eval/sentiment_goemotions_reddit (never copied into the repository). The train
 * split is fitted; the dev split alone chooses the hyper-parameters and the class-prior offsets
 * (selection only, nothing is fitted on it). No other labelled set is read here: TweetEval,
 * Sentiment140 and the VADER ground truth are for measuring (`npm run eval`), and GoEmotions test
 * is left to the evaluation. Comments labelled `ambiguous` or with labels in more than one group
 * are excluded.
 * Features: Universal Sentence Encoder lite (512-d, L2-normalised) + lexicon features
 * (src/enrich/sentiment/features.ts). Model: softmax regression, L2, mini-batch Adam
 * (src/enrich/sentiment/train-softmax.ts), plus a second head for frustration.
 *
 * Run: nice -n 10 node --import tsx scripts/train-sentiment.ts   (embeddings are cached under /tmp)
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { LEXICON_FEATURES, sentimentFeatures } from "../src/enrich/sentiment/features.js";
import type { SentimentModelFile } from "../src/enrich/sentiment/model-file.js";
import { type SoftmaxModel, softmaxProba } from "../src/enrich/sentiment/softmax.js";
import { trainSoftmax } from "../src/enrich/sentiment/train-softmax.js";
import { SENTIMENT_LABELS, type SentimentLabel } from "../src/model/post.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { CACHE_MODEL, embedCached } from "../test/eval/embedding-cache.js";
import { binary, multiclass } from "../test/eval/metrics.js";
import { loadGoEmotionNames, loadGoEmotions } from "../test/eval/sentiment-datasets.js";

const CLASSES: SentimentLabel[] = ["negative", "neutral", "positive"];

function round(v: number): number {
  return Number(v.toPrecision(5));
}

/** Macro-F1 of `model` on (x, y) when `offsets` are added to its logits. */
function macroF1(model: SoftmaxModel, x: Float64Array[], y: number[], offsets: readonly number[]): number {
  const p = new Float64Array(CLASSES.length);
  const pred = x.map((row) => {
    softmaxProba(model, row, p);
    const z = CLASSES.map((_, c) => Math.log(p[c]!) + offsets[c]!);
    return CLASSES[z.indexOf(Math.max(...z))]!;
  });
  return multiclass(
    y.map((i) => CLASSES[i]!),
    pred,
    CLASSES,
  ).macroF1;
}

/** Offsets tried for negative and neutral (positive stays 0: only differences matter). */
const OFFSET_GRID = [-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6];

/** GoEmotions emotions that make up the frustration head's positive class. */
const FRUSTRATION = ["anger", "annoyance", "disappointment", "disapproval", "disgust"];

async function features(split: "train" | "dev") {
  const { rows, excluded } = loadGoEmotions(split);
  const vectors = await embedCached(
    `goemotions-${split}`,
    rows.map((r) => r.text),
  );
  const x = rows.map((r, i) => sentimentFeatures(r.text, vectors[i]!));
  const y = rows.map((r) => CLASSES.indexOf(r.label));
  const emotions = loadGoEmotionNames(split);
  const frustrated = rows.map((r) => ((emotions.get(r.id) ?? []).some((e) => FRUSTRATION.includes(e)) ? 1 : 0));
  return { x, y, frustrated, excluded, rows: rows.length };
}

const train = await features("train");
const dev = await features("dev");

type Best = {
  model: SoftmaxModel;
  f1: number;
  rawF1: number;
  offsets: number[];
  hp: Record<string, number | string | number[]>;
};
let best: Best | undefined;
for (const l2 of [1e-4, 1e-3, 3e-3]) {
  // Up-weighting negatives: GoEmotions has 23% negative comments, forum complaints are common.
  for (const negativeWeight of [1, 1.5, 2]) {
    const hp = { l2, epochs: 12, batchSize: 128, learningRate: 0.002, seed: 7 };
    const classWeights = [negativeWeight, 1, 1];
    const model = trainSoftmax(train.x, train.y, { classes: CLASSES, classWeights, ...hp });
    const rawF1 = macroF1(model, dev.x, dev.y, [0, 0, 0]);
    let pick = { f1: rawF1, offsets: [0, 0, 0] };
    for (const neg of OFFSET_GRID) {
      for (const neu of OFFSET_GRID) {
        const f1 = macroF1(model, dev.x, dev.y, [neg, neu, 0]);
        if (f1 > pick.f1) pick = { f1, offsets: [neg, neu, 0] };
      }
    }
    console.log(
      `l2=${l2} negativeWeight=${negativeWeight} GoEmotions dev=${rawF1.toFixed(4)}, with offsets ${pick.offsets}: ${pick.f1.toFixed(4)}`,
    );
    if (!best || pick.f1 > best.f1) {
      best = {
        model,
        f1: pick.f1,
        rawF1,
        offsets: pick.offsets,
        hp: {
          ...hp,
          classWeights,
          selection: "macro-F1 on GoEmotions dev (hyper-parameters and class offsets together)",
          goEmotionsDevF1WithoutOffsets: round(rawF1),
        },
      };
    }
  }
}
if (!best) throw new Error("no model trained");

// Frustration head: P(the comment shows anger, annoyance, disappointment, disapproval or disgust),
// the emotions of a complaint. Class-balanced, so 0.5 is the balanced decision point; the lead
// classifier sets its own threshold.
const positives = train.frustrated.filter(Boolean).length;
const frustrationWeights = [train.rows / (2 * (train.rows - positives)), train.rows / (2 * positives)];
const frustration = trainSoftmax(train.x, train.frustrated, {
  classes: ["other", "frustration"],
  classWeights: frustrationWeights,
  l2: 1e-3,
  epochs: 12,
  batchSize: 128,
  learningRate: 0.002,
  seed: 7,
});
const p2 = new Float64Array(2);
const devFrustration = binary(
  dev.frustrated.map((f) => f === 1),
  dev.x.map((row) => softmaxProba(frustration, row, p2)[1]! >= 0.5),
);
console.log(`frustration head: dev F1 ${devFrustration.f1.toFixed(4)} (${positives} positive training comments)`);
// The threshold that maximises F1 on dev, recorded so lead detection can use it (it is chosen on
// GoEmotions dev, not on any evaluation set).
let frustrationBest = { threshold: 0.5, f1: devFrustration.f1 };
const devP = dev.x.map((row) => softmaxProba(frustration, row, p2)[1]!);
for (let t = 0.05; t < 0.96; t += 0.05) {
  const f1 = binary(
    dev.frustrated.map((f) => f === 1),
    devP.map((v) => v >= t),
  ).f1;
  if (f1 > frustrationBest.f1) frustrationBest = { threshold: round(t), f1 };
}
console.log(
  `frustration head: F1-best dev threshold ${frustrationBest.threshold} (F1 ${frustrationBest.f1.toFixed(4)})`,
);

const file: SentimentModelFile = {
  format: "threadsight-sentiment-v1",
  embeddingModel: CACHE_MODEL,
  dimensions: 512,
  lexiconFeatures: [...LEXICON_FEATURES],
  provenance: {
    dataset: "GoEmotions (Demszky et al., ACL 2020), group mapping",
    licence: "Apache-2.0",
    source: "../shared/data/eval/sentiment_goemotions_reddit/group/{train,dev}.tsv",
    trainRows: train.rows,
    trainExcluded: train.excluded,
    devRows: dev.rows,
    devExcluded: dev.excluded,
    exclusionRule: "ambiguous, or labels spanning more than one group",
    selectionData: "GoEmotions dev only (hyper-parameters and class offsets); no other labelled set was read",
    trainer: "scripts/train-sentiment.ts",
    trainedAt: new Date().toISOString().slice(0, 10),
  },
  hyperparameters: best.hp,
  devMacroF1: round(best.f1),
  classOffsets: best.offsets,
  frustration: {
    emotions: FRUSTRATION,
    devF1: round(devFrustration.f1),
    devBestThreshold: frustrationBest.threshold,
    softmax: {
      classes: frustration.classes,
      mean: frustration.mean.map(round),
      std: frustration.std.map(round),
      weights: frustration.weights.map((row) => row.map(round)),
      bias: frustration.bias.map(round),
    },
  },
  softmax: {
    classes: best.model.classes,
    mean: best.model.mean.map(round),
    std: best.model.std.map(round),
    weights: best.model.weights.map((row) => row.map(round)),
    bias: best.model.bias.map(round),
  },
};
if (file.softmax.classes.join() !== CLASSES.join() || !CLASSES.every((c) => SENTIMENT_LABELS.includes(c))) {
  throw new Error("class order drifted");
}
const out = path.join(PACKAGE_ROOT, "src/enrich/sentiment/model.json");
writeFileSync(out, `${JSON.stringify(file)}\n`);
console.log(`wrote ${out}: ${JSON.stringify(best.hp)} offsets ${best.offsets} dev macro-F1 ${best.f1.toFixed(4)}`);
