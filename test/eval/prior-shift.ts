/**
 * Whether the sentiment model's miss on tweets is a shift in class priors, which unlabelled
 * texts of the new domain can correct without any of its labels: the EM re-estimation of
 * Saerens, Latinne and Decaestecker (2002) on the model's corrected probabilities, taking the
 * source priors as the mean probability on GoEmotions train (what it learnt from), then the test
 * split classified with the probabilities re-weighted by new / source prior. Priors are
 * estimated on TweetEval's validation texts (labels unread) and applied to its test split;
 * GoEmotions dev -> test is the control (the same domain: little should move). Prints the
 * estimated and the true priors and macro-F1 before and after; docs/EVALUATION.md's sentiment
 * section quotes them.
 * Run: npx tsx test/eval/prior-shift.ts
 */
import { createSentimentClassifier } from "../../src/enrich/sentiment/classifier.js";
import { SENTIMENT_LABELS, type SentimentLabel } from "../../src/model/post.js";
import { embedCached } from "./embedding-cache.js";
import { multiclass } from "./metrics.js";
import { type LabelledText, loadGoEmotions, loadTweetEval } from "./sentiment-datasets.js";

const LABELS: readonly SentimentLabel[] = SENTIMENT_LABELS;
const ITERATIONS = 100;
const classifier = createSentimentClassifier();

async function probabilities(name: string, rows: readonly LabelledText[]): Promise<number[][]> {
  const texts = rows.map((r) => r.text);
  const results = await classifier.classify(texts, await embedCached(name, texts));
  return results.map((r) => LABELS.map((l) => r.probabilities[l]));
}

const mean = (rows: readonly number[][]): number[] =>
  LABELS.map((_, c) => rows.reduce((s, p) => s + p[c]!, 0) / rows.length);

/** Target priors by EM over unlabelled rows' probabilities, starting from the source priors. */
function estimatePriors(rows: readonly number[][], source: readonly number[]): number[] {
  let target = [...source];
  for (let k = 0; k < ITERATIONS; k++) {
    target = mean(
      rows.map((p) => {
        const q = p.map((x, c) => (x * target[c]!) / source[c]!);
        const sum = q.reduce((a, b) => a + b, 0);
        return q.map((x) => x / sum);
      }),
    );
  }
  return target;
}

const argmax = (p: readonly number[]): SentimentLabel => LABELS[p.indexOf(Math.max(...p))]!;
const fmt = (p: readonly number[]): string => LABELS.map((l, c) => `${l} ${p[c]!.toFixed(3)}`).join(", ");

const source = mean(await probabilities("goemotions-train", loadGoEmotions("train").rows));
console.log(`source priors (mean P on GoEmotions train): ${fmt(source)}`);
for (const [name, unlabelled, test] of [
  ["TweetEval val -> test", loadTweetEval("val"), loadTweetEval("test")],
  ["GoEmotions dev -> test (control)", loadGoEmotions("dev").rows, loadGoEmotions("test").rows],
] as const) {
  const target = estimatePriors(await probabilities(`${name} unlabelled`, unlabelled), source);
  const testP = await probabilities(`${name} test`, test);
  const gold = test.map((r) => r.label);
  const before = multiclass(gold, testP.map(argmax), LABELS);
  const after = multiclass(
    gold,
    testP.map((p) => argmax(p.map((x, c) => (x * target[c]!) / source[c]!))),
    LABELS,
  );
  const truth = LABELS.map((l) => gold.filter((g) => g === l).length / gold.length);
  console.log(`${name}: estimated priors ${fmt(target)}; true (test) ${fmt(truth)}`);
  const perClass = LABELS.map((l) => `${l} ${(100 * after.perClass[l].f1).toFixed(1)}`).join(", ");
  console.log(
    `  macro-F1 ${(100 * before.macroF1).toFixed(1)} -> ${(100 * after.macroF1).toFixed(1)}; per class after: ${perClass}`,
  );
}
