/**
 * Inference runs the softmax models compiled (standardisation folded into the weights): it must
 * give the stored models' probabilities, for the committed sentiment (one per encoder),
 * frustration and lead-head models alike, and a model whose features are far from standard is
 * where a wrong fold shows.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LEAD_HEADS, loadLeadHead } from "../../src/enrich/leads/heads.js";
import { loadSentimentModel, SENTIMENT_EMBEDDINGS } from "../../src/enrich/sentiment/model-file.js";
import { compiledProba, compileSoftmax, type SoftmaxModel, softmaxProba } from "../../src/enrich/sentiment/softmax.js";

/** A deterministic pseudo-random feature vector (no seeded RNG in node:test). */
function features(n: number, seed: number, scale = 1): Float64Array {
  const out = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out[i] = (s / 2147483648 - 0.5) * 2 * scale;
  }
  return out;
}

function assertSame(m: SoftmaxModel, x: Float64Array): void {
  const k = m.classes.length;
  const want = softmaxProba(m, x, new Float64Array(k));
  const got = compiledProba(compileSoftmax(m), x, new Float64Array(k));
  for (let c = 0; c < k; c++)
    assert.ok(Math.abs(want[c]! - got[c]!) < 1e-12, `class ${m.classes[c]}: ${want[c]} vs ${got[c]}`);
}

describe("compiled softmax", () => {
  it("gives the stored models' probabilities", () => {
    const sentiment = SENTIMENT_EMBEDDINGS.map((e) => loadSentimentModel(e));
    const models = [
      ...sentiment.flatMap((s) => [s.softmax, s.frustration.softmax]),
      ...LEAD_HEADS.map((h) => loadLeadHead(h).softmax),
    ];
    for (const m of models) for (let seed = 1; seed <= 20; seed++) assertSame(m, features(m.mean.length, seed, 0.2));
  });

  it("folds each feature's own mean and spread", () => {
    const m: SoftmaxModel = {
      classes: ["a", "b", "c"],
      mean: [10, -3, 0.5],
      std: [2, 0.1, 7],
      weights: [
        [1, -2, 0.5],
        [0, 3, -1],
        [-1, 0, 2],
      ],
      bias: [0.1, -0.2, 0.3],
    };
    for (let seed = 1; seed <= 20; seed++) assertSame(m, features(3, seed, 12));
    // By hand: x = mean gives z = bias.
    const p = compiledProba(compileSoftmax(m), Float64Array.from(m.mean), new Float64Array(3));
    const e = m.bias.map(Math.exp);
    const sum = e.reduce((a, b) => a + b, 0);
    for (let c = 0; c < 3; c++) assert.ok(Math.abs(p[c]! - e[c]! / sum) < 1e-12);
  });
});
