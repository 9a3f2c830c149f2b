/**
 * Classification and correlation metrics shared by the evaluation sections and the training
 * script: per-class precision/recall/F1, macro-F1, binary P/R/F1, Cohen's kappa, Pearson's r.
 */

/** Precision, recall and F1 of one class (or of a binary decision). */
export interface Prf {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

function prf(tp: number, fp: number, fn: number): Prf {
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, support: tp + fn };
}

/** Per-class P/R/F1 and their unweighted mean F1 over `classes`. */
export function multiclass<L extends string>(
  gold: readonly L[],
  pred: readonly L[],
  classes: readonly L[],
): { perClass: Record<L, Prf>; macroF1: number; accuracy: number } {
  const perClass = {} as Record<L, Prf>;
  for (const c of classes) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    gold.forEach((g, i) => {
      const p = pred[i];
      if (p === c && g === c) tp++;
      else if (p === c) fp++;
      else if (g === c) fn++;
    });
    perClass[c] = prf(tp, fp, fn);
  }
  const macroF1 = classes.reduce((s, c) => s + perClass[c].f1, 0) / classes.length;
  const accuracy = gold.filter((g, i) => g === pred[i]).length / Math.max(1, gold.length);
  return { perClass, macroF1, accuracy };
}

/** P/R/F1 of the positive decision. */
export function binary(gold: readonly boolean[], pred: readonly boolean[]): Prf & { accuracy: number } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  gold.forEach((g, i) => {
    const p = pred[i] === true;
    if (p && g) tp++;
    else if (p) fp++;
    else if (g) fn++;
    else tn++;
  });
  return { ...prf(tp, fp, fn), accuracy: (tp + tn) / Math.max(1, gold.length) };
}

/** Cohen's kappa of two binary raters. */
export function cohenKappa(a: readonly boolean[], b: readonly boolean[]): number {
  const n = a.length;
  if (n === 0) return 0;
  const agree = a.filter((x, i) => x === b[i]).length / n;
  const pa = a.filter(Boolean).length / n;
  const pb = b.filter(Boolean).length / n;
  const chance = pa * pb + (1 - pa) * (1 - pb);
  return chance === 1 ? 1 : (agree - chance) / (1 - chance);
}

/** Pearson's correlation coefficient. */
export function pearson(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
}
