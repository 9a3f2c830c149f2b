/**
 * Training for softmax.ts: L2-regularised multinomial logistic regression fitted by mini-batch
 * Adam on standardised features, with optional per-class weights (inverse frequency balances
 * GoEmotions' 42/35/23 split, which is what macro-F1 rewards). Deterministic for a given seed.
 */
import { normaliseLogits, type SoftmaxModel } from "./softmax.js";

/** Hyper-parameters of {@link trainSoftmax}. */
export interface TrainOptions {
  classes: string[];
  /** L2 penalty on the weights (not the biases), per example. */
  l2: number;
  epochs: number;
  batchSize: number;
  learningRate: number;
  /** Loss weight per class index; all 1 when omitted. */
  classWeights?: number[];
  /**
   * Multiplier per feature after standardisation (all 1 when omitted): a feature scaled up is
   * penalised less by the L2 term. Folded into the stored `std`, so inference is unchanged.
   */
  featureScale?: readonly number[];
  seed: number;
}

/** Small deterministic PRNG (mulberry32), so a retrain reproduces the committed weights. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Inverse class frequency, scaled so a balanced set gets weight 1 everywhere (absent classes 0). */
export function balancedWeights(y: readonly number[], classes: number): number[] {
  const counts = new Array<number>(classes).fill(0);
  for (const c of y) counts[c] = counts[c]! + 1;
  return counts.map((n) => (n === 0 ? 0 : y.length / (classes * n)));
}

/** Fits a model on rows `x` (each of equal length) with class indices `y`. */
export function trainSoftmax(x: readonly ArrayLike<number>[], y: readonly number[], o: TrainOptions): SoftmaxModel {
  const n = x.length;
  const d = x[0]?.length ?? 0;
  const k = o.classes.length;
  const mean = new Float64Array(d);
  const sq = new Float64Array(d);
  for (const row of x) for (let j = 0; j < d; j++) mean[j] = mean[j]! + row[j]!;
  for (let j = 0; j < d; j++) mean[j] = mean[j]! / n;
  for (const row of x) for (let j = 0; j < d; j++) sq[j] = sq[j]! + (row[j]! - mean[j]!) ** 2;
  const std = Array.from(sq, (s, j) => (Math.sqrt(s / n) || 1) / (o.featureScale?.[j] ?? 1));
  const z = new Float32Array(n * d);
  x.forEach((row, i) => {
    for (let j = 0; j < d; j++) z[i * d + j] = (row[j]! - mean[j]!) / std[j]!;
  });

  const w = new Float64Array(k * d);
  const b = new Float64Array(k);
  const params = k * d + k;
  const m1 = new Float64Array(params);
  const m2 = new Float64Array(params);
  const grad = new Float64Array(params);
  const cw = o.classWeights ?? new Array<number>(k).fill(1);
  const order = Array.from({ length: n }, (_, i) => i);
  const rand = rng(o.seed);
  const p = new Float64Array(k);
  const beta1 = 0.9;
  const beta2 = 0.999;
  let step = 0;
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let start = 0; start < n; start += o.batchSize) {
      const end = Math.min(n, start + o.batchSize);
      grad.fill(0);
      for (let bi = start; bi < end; bi++) {
        const i = order[bi]!;
        const off = i * d;
        for (let c = 0; c < k; c++) {
          let s = b[c]!;
          for (let j = 0; j < d; j++) s += w[c * d + j]! * z[off + j]!;
          p[c] = s;
        }
        normaliseLogits(p);
        const weight = cw[y[i]!]!;
        for (let c = 0; c < k; c++) {
          const g = weight * (p[c]! - (c === y[i] ? 1 : 0));
          for (let j = 0; j < d; j++) grad[c * d + j] = grad[c * d + j]! + g * z[off + j]!;
          grad[k * d + c] = grad[k * d + c]! + g;
        }
      }
      const size = end - start;
      step++;
      const lr = (o.learningRate * Math.sqrt(1 - beta2 ** step)) / (1 - beta1 ** step);
      for (let q = 0; q < params; q++) {
        const value = q < k * d ? w[q]! : b[q - k * d]!;
        const g = grad[q]! / size + (q < k * d ? o.l2 * value : 0);
        m1[q] = beta1 * m1[q]! + (1 - beta1) * g;
        m2[q] = beta2 * m2[q]! + (1 - beta2) * g * g;
        const next = value - (lr * m1[q]!) / (Math.sqrt(m2[q]!) + 1e-8);
        if (q < k * d) w[q] = next;
        else b[q - k * d] = next;
      }
    }
  }
  return {
    classes: [...o.classes],
    mean: Array.from(mean),
    std,
    weights: Array.from({ length: k }, (_, c) => Array.from(w.subarray(c * d, (c + 1) * d))),
    bias: Array.from(b),
  };
}
