/**
 * Fitting the lead model (lead-model.ts) with the project's softmax trainer: class-balanced
 * weights, then the lead-vs-not threshold that gives the best F1 on held-out rows. Used by
 * scripts/train-lead-model.ts; deterministic for a given seed.
 */
import type { SoftmaxModel } from "../sentiment/softmax.js";
import { compiledProba, compileSoftmax } from "../sentiment/softmax.js";
import { balancedWeights, trainSoftmax } from "../sentiment/train-softmax.js";
import { LEAD_MODEL_CLASSES } from "./lead-model.js";

/** The class weights the lead model is fitted with (shared with the sentiment trainer). */
export { balancedWeights };

/** Hyper-parameters of {@link fitLeadModel}. */
export interface LeadFitOptions {
  l2: number;
  epochs: number;
  batchSize: number;
  learningRate: number;
  seed: number;
}

/** Fits the softmax on rows `x` with class indices `y` (LEAD_MODEL_CLASSES order). */
export function fitLeadModel(x: readonly Float64Array[], y: readonly number[], o: LeadFitOptions): SoftmaxModel {
  if (x.length === 0 || x.length !== y.length)
    throw new Error(`fitLeadModel: got ${x.length} rows and ${y.length} labels`);
  const k = LEAD_MODEL_CLASSES.length;
  if (y.some((c) => !Number.isInteger(c) || c < 0 || c >= k))
    throw new Error(`fitLeadModel: labels must be class indices 0..${k - 1}`);
  return trainSoftmax(x, y, {
    classes: [...LEAD_MODEL_CLASSES],
    l2: o.l2,
    epochs: o.epochs,
    batchSize: o.batchSize,
    learningRate: o.learningRate,
    classWeights: balancedWeights(y, k),
    seed: o.seed,
  });
}

/** Class probabilities of each row. */
export function predictAll(model: SoftmaxModel, x: readonly Float64Array[]): Float64Array[] {
  const compiled = compileSoftmax(model);
  return x.map((row) => compiledProba(compiled, row, new Float64Array(model.classes.length)).slice());
}

/** Lead-vs-not precision, recall and F1, and type accuracy over the gold leads. */
export interface LeadScores {
  precision: number;
  recall: number;
  f1: number;
  typeAccuracy: number;
}

/** Scores predicted classes (index 0 = none) against gold ones. */
export function leadScores(gold: readonly number[], predicted: readonly number[]): LeadScores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let leads = 0;
  let typed = 0;
  gold.forEach((g, i) => {
    const p = predicted[i]!;
    if (g !== 0) {
      leads++;
      if (p === g) typed++;
    }
    if (p !== 0 && g !== 0) tp++;
    else if (p !== 0) fp++;
    else if (g !== 0) fn++;
  });
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  const f1 = tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
  return { precision, recall, f1, typeAccuracy: typed / Math.max(1, leads) };
}

/** The predicted class of each probability row at lead threshold `t` (0 where `vetoed`). */
export function classesAt(p: readonly Float64Array[], t: number, vetoed: readonly boolean[] = []): number[] {
  return p.map((row, i) => {
    if (vetoed[i] === true || 1 - row[0]! < t) return 0;
    let best = 1;
    for (let c = 2; c < row.length; c++) if (row[c]! > row[best]!) best = c;
    return best;
  });
}

/** The threshold among 0.05..0.95 (steps of 0.05) with the best lead-vs-not F1 (the lowest on ties). */
export function bestThreshold(
  gold: readonly number[],
  p: readonly Float64Array[],
  vetoed: readonly boolean[] = [],
): { threshold: number; scores: LeadScores } {
  let best: { threshold: number; scores: LeadScores } | undefined;
  for (let i = 1; i <= 19; i++) {
    const threshold = i / 20;
    const scores = leadScores(gold, classesAt(p, threshold, vetoed));
    if (best === undefined || scores.f1 > best.scores.f1 + 1e-12) best = { threshold, scores };
  }
  return best!;
}
