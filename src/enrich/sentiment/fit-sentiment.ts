/**
 * Fitting the sentiment models: a class-balanced softmax regression whose L2 strength is chosen by
 * macro-F1 on a seeded, stratified held-out part of the training rows and then refitted on all of
 * them, and the frustration head beside it. Pure functions over feature rows, so
 * scripts/train-sentiment.ts and the tests run the same code; deterministic for a given seed.
 */
import { LEXICON_FEATURES } from "./features.js";
import { compiledProba, compileSoftmax, type SoftmaxModel } from "./softmax.js";
import { balancedWeights, rng, trainSoftmax } from "./train-softmax.js";

/** Class order of the sentiment head's rows. */
export const SENTIMENT_CLASSES = ["negative", "neutral", "positive"] as const;

/** Settings of {@link fitSentiment}. */
export interface SentimentFitOptions {
  /** L2 penalties tried, per example (C = 1 / (l2 * rows)). */
  l2Grid: readonly number[];
  /**
   * Multipliers tried for the standardised lexicon features (the embedding's stay 1): above 1,
   * the nine features are penalised less than each embedding dimension.
   */
  lexiconScaleGrid: readonly number[];
  /** Share of each class held out to choose the penalty. */
  holdoutShare: number;
  epochs: number;
  batchSize: number;
  learningRate: number;
  seed: number;
}

/** The committed models' settings. */
export const SENTIMENT_FIT: SentimentFitOptions = Object.freeze({
  l2Grid: Object.freeze([1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1]),
  lexiconScaleGrid: Object.freeze([1, 3, 10]),
  holdoutShare: 0.2,
  epochs: 12,
  batchSize: 128,
  learningRate: 0.002,
  seed: 7,
});

/**
 * Row indices split per class: a seeded shuffle of each class's rows, the first `share` of it
 * held out. Both lists come back in ascending order, so the split does not depend on class order.
 */
export function stratifiedHoldout(
  y: readonly number[],
  share: number,
  seed: number,
): { fit: number[]; held: number[] } {
  const byClass = new Map<number, number[]>();
  y.forEach((c, i) => {
    const rows = byClass.get(c) ?? [];
    rows.push(i);
    byClass.set(c, rows);
  });
  const rand = rng(seed);
  const held: number[] = [];
  for (const c of [...byClass.keys()].sort((a, b) => a - b)) {
    const rows = byClass.get(c)!;
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [rows[i], rows[j]] = [rows[j]!, rows[i]!];
    }
    held.push(...rows.slice(0, Math.round(rows.length * share)));
  }
  const isHeld = new Set(held);
  return { fit: y.map((_, i) => i).filter((i) => !isHeld.has(i)), held: held.sort((a, b) => a - b) };
}

/** Unweighted mean over `classes` of each class's F1. */
export function macroF1(gold: readonly number[], pred: readonly number[], classes: number): number {
  let sum = 0;
  for (let c = 0; c < classes; c++) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    gold.forEach((g, i) => {
      if (pred[i] === c && g === c) tp++;
      else if (pred[i] === c) fp++;
      else if (g === c) fn++;
    });
    sum += tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
  }
  return sum / classes;
}

/** Class probabilities of each row. */
export function probabilities(model: SoftmaxModel, x: readonly Float64Array[]): Float64Array[] {
  const compiled = compileSoftmax(model);
  return x.map((row) => compiledProba(compiled, row, new Float64Array(model.classes.length)).slice());
}

/** The most probable class of each row. */
export function predict(model: SoftmaxModel, x: readonly Float64Array[]): number[] {
  return probabilities(model, x).map((p) => p.indexOf(Math.max(...p)));
}

/** One tried setting and its held-out score. */
export interface GridPoint {
  l2: number;
  lexiconScale: number;
  heldOutMacroF1: number;
}

/** What {@link fitSentiment} returns: the refitted model and how its penalty was chosen. */
export interface SentimentFit {
  model: SoftmaxModel;
  l2: number;
  lexiconScale: number;
  grid: GridPoint[];
  fitRows: number;
  heldRows: number;
  /** Indices of the held-out rows, ascending. */
  held: number[];
}

function pick<T>(rows: readonly T[], at: readonly number[]): T[] {
  return at.map((i) => rows[i]!);
}

/**
 * Chooses the L2 penalty and lexicon scale by macro-F1 on the held-out rows (a tie goes to the
 * smaller scale, then the larger penalty), then fits that setting on every row. Class weights are
 * inverse frequencies of the rows being fitted; the last LEXICON_FEATURES columns are the lexicon's.
 */
export function fitSentiment(
  x: readonly Float64Array[],
  y: readonly number[],
  o: SentimentFitOptions = SENTIMENT_FIT,
): SentimentFit {
  const k = SENTIMENT_CLASSES.length;
  if (x.length === 0 || x.length !== y.length)
    throw new Error(`fitSentiment: got ${x.length} rows and ${y.length} labels`);
  if (y.some((c) => !Number.isInteger(c) || c < 0 || c >= k))
    throw new Error(`fitSentiment: labels must be class indices 0..${k - 1}`);
  const { fit, held } = stratifiedHoldout(y, o.holdoutShare, o.seed);
  const xFit = pick(x, fit);
  const yFit = pick(y, fit);
  const xHeld = pick(x, held);
  const yHeld = pick(y, held);
  const d = x[0]!.length;
  const train = (rows: readonly Float64Array[], labels: readonly number[], l2: number, lexiconScale: number) =>
    trainSoftmax(rows, labels, {
      classes: [...SENTIMENT_CLASSES],
      classWeights: balancedWeights(labels, k),
      featureScale: Array.from({ length: d }, (_, j) => (j >= d - LEXICON_FEATURES.length ? lexiconScale : 1)),
      l2,
      epochs: o.epochs,
      batchSize: o.batchSize,
      learningRate: o.learningRate,
      seed: o.seed,
    });
  const grid: GridPoint[] = [];
  let best: GridPoint | undefined;
  for (const lexiconScale of [...o.lexiconScaleGrid].sort((a, b) => a - b)) {
    for (const l2 of [...o.l2Grid].sort((a, b) => b - a)) {
      const model = train(xFit, yFit, l2, lexiconScale);
      const point = { l2, lexiconScale, heldOutMacroF1: macroF1(yHeld, predict(model, xHeld), k) };
      grid.push(point);
      if (!best || point.heldOutMacroF1 > best.heldOutMacroF1) best = point;
    }
  }
  if (!best) throw new Error("fitSentiment: empty grid");
  return {
    model: train(x, y, best.l2, best.lexiconScale),
    l2: best.l2,
    lexiconScale: best.lexiconScale,
    grid,
    fitRows: fit.length,
    heldRows: held.length,
    held,
  };
}

/** The frustration head's settings, unchanged since the head was introduced. */
export const FRUSTRATION_FIT = Object.freeze({ l2: 1e-3, epochs: 12, batchSize: 128, learningRate: 0.002, seed: 7 });

/**
 * P(frustration) head, class-balanced so 0.5 is the balanced decision point; `frustrated` holds
 * 1 for a comment with a frustration emotion, else 0.
 */
export function fitFrustration(x: readonly Float64Array[], frustrated: readonly number[]): SoftmaxModel {
  return trainSoftmax(x, frustrated, {
    classes: ["other", "frustration"],
    classWeights: balancedWeights(frustrated, 2),
    ...FRUSTRATION_FIT,
  });
}

/** Binary F1 of `p >= threshold` against `gold`. */
export function binaryF1(gold: readonly boolean[], p: readonly number[], threshold: number): number {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  gold.forEach((g, i) => {
    const yes = p[i]! >= threshold;
    if (yes && g) tp++;
    else if (yes) fp++;
    else if (g) fn++;
  });
  return tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
}
