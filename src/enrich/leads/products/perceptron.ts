/**
 * An averaged perceptron over sparse string features: the learner of the product tagger
 * (tagger.ts). Each class keeps one weight per feature; a wrong guess moves the weights of the
 * features present towards the right class and away from the guessed one, and the weights kept
 * are the average over every step, which generalises far better than the last ones on a few
 * hundred sentences. Training is deterministic: no randomness but the order the caller gives.
 */

/** Weights of a trained perceptron: per feature, one weight per class (classes in a fixed order). */
export type PerceptronWeights = ReadonlyMap<string, ArrayLike<number>>;

/** Scores of each class for one set of features: the sum of their weights. */
export function scoreClasses(weights: PerceptronWeights, features: readonly string[], classes: number): number[] {
  const out = new Array<number>(classes).fill(0);
  for (const f of features) {
    const w = weights.get(f);
    if (w === undefined) continue;
    for (let c = 0; c < classes; c++) out[c]! += w[c]!;
  }
  return out;
}

/** The index of the largest score; ties go to the lowest index, so the outcome never depends on order. */
export function argmax(scores: readonly number[]): number {
  let best = 0;
  for (let c = 1; c < scores.length; c++) if (scores[c]! > scores[best]!) best = c;
  return best;
}

/** A perceptron being trained: call {@link PerceptronTrainer.update} per example, then {@link PerceptronTrainer.averaged}. */
export class PerceptronTrainer {
  private readonly current = new Map<string, Float64Array>();
  /** Per feature, the running sum of each weight over the steps before its last change. */
  private readonly totals = new Map<string, Float64Array>();
  /** Per feature, the step of its last change. */
  private readonly stamps = new Map<string, number>();
  private step = 0;

  constructor(private readonly classes: number) {}

  /** Current (not averaged) scores, as the guess during training is made. */
  scores(features: readonly string[]): number[] {
    return scoreClasses(this.current, features, this.classes);
  }

  /** One training step: when `guess` is not `truth`, moves the features' weights by one towards `truth`. */
  update(features: readonly string[], truth: number, guess: number): void {
    this.step++;
    if (truth === guess) return;
    for (const f of features) {
      const w = this.weightsOf(f);
      this.settle(f, w);
      w[truth]! += 1;
      w[guess]! -= 1;
    }
  }

  /** The averaged weights, with those that round to zero at `digits` decimals left out. */
  averaged(digits = 3): Map<string, number[]> {
    const out = new Map<string, number[]>();
    const scale = 10 ** digits;
    for (const [f, w] of [...this.current].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      this.settle(f, w);
      const total = this.totals.get(f)!;
      // `|| 0` writes -0 as 0, so the weights survive a round trip through JSON unchanged.
      const avg = [...total].map((t) => Math.round((t / Math.max(1, this.step)) * scale) / scale || 0);
      if (avg.some((x) => x !== 0)) out.set(f, avg);
    }
    return out;
  }

  private weightsOf(f: string): Float64Array {
    let w = this.current.get(f);
    if (w === undefined) {
      w = new Float64Array(this.classes);
      this.current.set(f, w);
      this.totals.set(f, new Float64Array(this.classes));
      this.stamps.set(f, this.step);
    }
    return w;
  }

  /** Adds the weights held since the feature's last change to its running sum. */
  private settle(f: string, w: Float64Array): void {
    const total = this.totals.get(f)!;
    const held = this.step - this.stamps.get(f)!;
    for (let c = 0; c < this.classes; c++) total[c]! += held * w[c]!;
    this.stamps.set(f, this.step);
  }
}
