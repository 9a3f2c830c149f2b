/**
 * Builds a sentiment model file for one bundled encoder from GoEmotions (Demszky et al. 2020,
 * Apache-2.0, `group` mapping, read from the shared data, never copied into the repository):
 * train fits the model and, through a held-out part of it, chooses its L2 penalty; dev only picks
 * the frustration head's reported threshold and gives a check figure. No other labelled set is
 * read. Shared by scripts/train-sentiment.ts and the tests that check the committed files.
 */
import { createHash } from "node:crypto";
import type { LocalEncoderName } from "../../src/config.js";
import { LEXICON_FEATURES, sentimentFeatures } from "../../src/enrich/sentiment/features.js";
import {
  binaryF1,
  fitFrustration,
  fitSentiment,
  macroF1,
  predict,
  probabilities,
  SENTIMENT_CLASSES,
  SENTIMENT_FIT,
  stratifiedHoldout,
} from "../../src/enrich/sentiment/fit-sentiment.js";
import type { SentimentModelFile } from "../../src/enrich/sentiment/model-file.js";
import type { SoftmaxModel } from "../../src/enrich/sentiment/softmax.js";
import { ENCODER_MODELS, embedCached } from "./embedding-cache.js";
import { loadGoEmotionNames, loadGoEmotions } from "./sentiment-datasets.js";

/** GoEmotions emotions that make up the frustration head's positive class. */
export const FRUSTRATION_EMOTIONS = ["anger", "annoyance", "disappointment", "disapproval", "disgust"];

/** Seed of the optional training subsample (a stratified draw, like the held-out part). */
const SAMPLE_SEED = 11;

function round(v: number): number {
  return Number(v.toPrecision(5));
}

function rounded(m: SoftmaxModel): SoftmaxModel {
  return {
    classes: m.classes,
    mean: m.mean.map(round),
    std: m.std.map(round),
    weights: m.weights.map((row) => row.map(round)),
    bias: m.bias.map(round),
  };
}

/** SHA-256 (first 16 hex digits) of comment ids in order: names the rows a model saw. */
export function idsDigest(ids: readonly string[]): string {
  return createHash("sha256").update(ids.join("\n")).digest("hex").slice(0, 16);
}

/**
 * The GoEmotions train rows a model is fitted on: all kept rows, or with `sample` a seeded
 * stratified draw of that many (in file order), and which of them are held out for the penalty.
 */
export function trainingRows(sample?: number) {
  const { rows: all, excluded } = loadGoEmotions("train");
  const y = all.map((r) => SENTIMENT_CLASSES.indexOf(r.label));
  const rows =
    sample === undefined || sample >= all.length
      ? all
      : stratifiedHoldout(y, sample / all.length, SAMPLE_SEED).held.map((i) => all[i]!);
  const labels = rows.map((r) => SENTIMENT_CLASSES.indexOf(r.label));
  const held = stratifiedHoldout(labels, SENTIMENT_FIT.holdoutShare, SENTIMENT_FIT.seed).held;
  return { rows, labels, held, excluded, total: all.length };
}

async function featureRows(name: string, rows: readonly { text: string }[], encoder: LocalEncoderName) {
  const vectors = await embedCached(
    name,
    rows.map((r) => r.text),
    encoder,
  );
  return rows.map((r, i) => sentimentFeatures(r.text, vectors[i]!));
}

/** Trains the model file for `encoder`; `log` receives progress lines. */
export async function trainSentimentFile(
  encoder: LocalEncoderName,
  options: { sample?: number; log?: (line: string) => void } = {},
): Promise<SentimentModelFile> {
  const log = options.log ?? (() => {});
  const { model: embeddingModel, dimensions } = ENCODER_MODELS[encoder];
  const train = trainingRows(options.sample);
  const sampled = train.rows.length < train.total;
  const x = await featureRows(
    sampled ? `goemotions-train-${train.rows.length}` : "goemotions-train",
    train.rows,
    encoder,
  );
  const fit = fitSentiment(x, train.labels);
  for (const p of fit.grid)
    log(`${encoder} l2=${p.l2} lexicon scale ${p.lexiconScale}: held-out macro-F1 ${p.heldOutMacroF1.toFixed(4)}`);

  const dev = loadGoEmotions("dev");
  const devX = await featureRows("goemotions-dev", dev.rows, encoder);
  const devY = dev.rows.map((r) => SENTIMENT_CLASSES.indexOf(r.label));
  const devMacroF1 = macroF1(devY, predict(fit.model, devX), SENTIMENT_CLASSES.length);
  log(
    `${encoder} chosen l2=${fit.l2} lexicon scale ${fit.lexiconScale}; GoEmotions dev macro-F1 ${devMacroF1.toFixed(4)}`,
  );

  const trainEmotions = loadGoEmotionNames("train");
  const frustrated = train.rows.map((r) =>
    (trainEmotions.get(r.id) ?? []).some((e) => FRUSTRATION_EMOTIONS.includes(e)) ? 1 : 0,
  );
  const frustration = fitFrustration(x, frustrated);
  const devEmotions = loadGoEmotionNames("dev");
  const devFrustrated = dev.rows.map((r) =>
    (devEmotions.get(r.id) ?? []).some((e) => FRUSTRATION_EMOTIONS.includes(e)),
  );
  const devP = probabilities(frustration, devX).map((p) => p[1]!);
  const atHalf = binaryF1(devFrustrated, devP, 0.5);
  // The F1-best threshold on dev in steps of 0.05, recorded for lead detection to read.
  let bestThreshold = { threshold: 0.5, f1: atHalf };
  for (let t = 0.05; t < 0.96; t += 0.05) {
    const f1 = binaryF1(devFrustrated, devP, t);
    if (f1 > bestThreshold.f1) bestThreshold = { threshold: round(t), f1 };
  }
  log(`${encoder} frustration head: dev F1 ${atHalf.toFixed(4)}, best threshold ${bestThreshold.threshold}`);

  const ids = train.rows.map((r) => r.id);
  const n = train.rows.length - fit.heldRows;
  return {
    format: "threadsight-sentiment-v1",
    embeddingModel,
    dimensions,
    lexiconFeatures: [...LEXICON_FEATURES],
    provenance: {
      dataset: "GoEmotions (Demszky et al., ACL 2020), group mapping",
      licence: "Apache-2.0",
      source: "../shared/data/eval/sentiment_goemotions_reddit/group/{train,dev}.tsv",
      trainRows: train.rows.length,
      trainExcluded: train.excluded,
      trainSample: sampled
        ? `seeded stratified draw (seed ${SAMPLE_SEED}) of ${train.total} kept rows`
        : "all kept rows",
      trainIdsSha256: idsDigest(ids),
      heldOutRows: fit.heldRows,
      heldOutIdsSha256: idsDigest(fit.held.map((i) => ids[i]!)),
      devRows: dev.rows.length,
      devExcluded: dev.excluded,
      exclusionRule: "ambiguous, or labels spanning more than one group",
      selectionData:
        "GoEmotions train only for the sentiment head (its L2 and lexicon scale on a held-out fifth); GoEmotions dev for the frustration threshold; no other labelled set was read",
      trainer: "scripts/train-sentiment.ts",
    },
    hyperparameters: {
      model: "class-balanced multinomial logistic regression (L2), mini-batch Adam on standardised features",
      l2: fit.l2,
      C: round(1 / (fit.l2 * n)),
      lexiconScale: fit.lexiconScale,
      grid: fit.grid.map((p) => `l2 ${p.l2}, lexicon x${p.lexiconScale}: ${round(p.heldOutMacroF1)}`).join("; "),
      holdoutShare: SENTIMENT_FIT.holdoutShare,
      epochs: SENTIMENT_FIT.epochs,
      batchSize: SENTIMENT_FIT.batchSize,
      learningRate: SENTIMENT_FIT.learningRate,
      seed: SENTIMENT_FIT.seed,
      selection: "macro-F1 on the held-out part of GoEmotions train, then refitted on all training rows",
    },
    devMacroF1: round(devMacroF1),
    classOffsets: [0, 0, 0],
    softmax: rounded(fit.model),
    frustration: {
      emotions: FRUSTRATION_EMOTIONS,
      devF1: round(atHalf),
      devBestThreshold: bestThreshold.threshold,
      softmax: rounded(frustration),
    },
  };
}
