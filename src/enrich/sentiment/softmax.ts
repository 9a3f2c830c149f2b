/**
 * Multinomial logistic regression (softmax) at inference time: the serialised model format, its
 * validation, and class probabilities for one feature vector. Training lives in train-softmax.ts.
 * Ingest runs three of these per post (sentiment, frustration, a lead head or two), so inference
 * uses the model compiled once: the standardisation folded into the weights, which leaves one
 * multiply-add per weight instead of a subtraction, a division and a multiply-add.
 */

/** A trained softmax model as stored in model.json. Features are standardised before the dot product. */
export interface SoftmaxModel {
  /** Class names, in the order of `weights` rows and of the probabilities returned. */
  classes: string[];
  /** Per-feature mean and standard deviation used to standardise inputs. */
  mean: number[];
  std: number[];
  /** One row of weights per class, each of length `mean.length`. */
  weights: number[][];
  /** One bias per class. */
  bias: number[];
}

/** Throws unless `m` is a structurally consistent model with `features` inputs. */
export function checkSoftmaxModel(m: SoftmaxModel, features: number): void {
  const k = m.classes.length;
  const ok =
    k >= 2 &&
    m.mean.length === features &&
    m.std.length === features &&
    m.bias.length === k &&
    m.weights.length === k &&
    m.weights.every((row) => row.length === features) &&
    m.std.every((s) => s > 0);
  if (!ok) throw new Error(`sentiment model does not match ${features} features and ${k} classes`);
}

/** Turns logits into probabilities in place (shifted by the maximum, so exp cannot overflow). */
export function normaliseLogits(z: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of z) if (v > max) max = v;
  let sum = 0;
  for (let c = 0; c < z.length; c++) {
    z[c] = Math.exp(z[c]! - max);
    sum += z[c]!;
  }
  for (let c = 0; c < z.length; c++) z[c] = z[c]! / sum;
  return z;
}

/** Writes the class probabilities of feature vector `x` into `out` (length = classes). */
export function softmaxProba(m: SoftmaxModel, x: ArrayLike<number>, out: Float64Array): Float64Array {
  for (let c = 0; c < m.classes.length; c++) {
    const w = m.weights[c]!;
    let z = m.bias[c]!;
    for (let j = 0; j < w.length; j++) z += w[j]! * ((x[j]! - m.mean[j]!) / m.std[j]!);
    out[c] = z;
  }
  return normaliseLogits(out);
}

/**
 * A model prepared for inference: weights w/std in one row-major array and biases
 * b - sum(w * mean / std), so z = bias + weights . x gives the same logits as the stored model up to
 * rounding (~1e-15 relative).
 */
export interface CompiledSoftmax {
  readonly classes: number;
  readonly features: number;
  readonly weights: Float64Array;
  readonly bias: Float64Array;
}

/** Folds the standardisation of a (checked) model into its weights and biases. */
export function compileSoftmax(m: SoftmaxModel): CompiledSoftmax {
  const k = m.classes.length;
  const f = m.mean.length;
  const weights = new Float64Array(k * f);
  const bias = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    const w = m.weights[c]!;
    let b = m.bias[c]!;
    for (let j = 0; j < f; j++) {
      const scaled = w[j]! / m.std[j]!;
      weights[c * f + j] = scaled;
      b -= scaled * m.mean[j]!;
    }
    bias[c] = b;
  }
  return { classes: k, features: f, weights, bias };
}

/** Writes the class probabilities of feature vector `x` (length = features) into `out`. */
export function compiledProba(m: CompiledSoftmax, x: Float32Array | Float64Array, out: Float64Array): Float64Array {
  const { features: f, weights } = m;
  for (let c = 0; c < m.classes; c++) {
    let z = m.bias[c]!;
    const row = c * f;
    for (let j = 0; j < f; j++) z += weights[row + j]! * x[j]!;
    out[c] = z;
  }
  return normaliseLogits(out);
}
