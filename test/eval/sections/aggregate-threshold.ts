/**
 * The relevance threshold of AggregatePosts with a query: the least cosine similarity between
 * the query's and a post's embedding for the post to be counted. Chosen on the dev split of the
 * SemEval-2016 Task 3 subtask B judgements (retrieval.ts: original questions with ten judged
 * related questions each, relevant = PerfectMatch or Relevant) as the similarity with the best
 * F1 of "counted" against "relevant" over every judged pair, and reported on train_part2,
 * which it never saw. The query is the question's subject line, as a user would type it; posts
 * are embedded as ingest embeds them. Also reported: how many of the other queries' posts
 * (judged for another question, so very likely irrelevant) pass it, per query.
 */

import type { LocalEncoderName } from "../../../src/config.js";
import { MIN_SIMILARITY } from "../../../src/core/relevance-threshold.js";
import { postEmbeddingText } from "../../../src/enrich/embed-text.js";
import { ENCODER_MODELS, embedCached } from "../embedding-cache.js";
import { fmt, table } from "../format.js";
import type { Query } from "../retrieval.js";
import { FOLDER, loadQuestionSimilarity } from "../retrieval.js";
import type { EvalContext, EvalSection } from "../section.js";

const ENCODERS: readonly LocalEncoderName[] = ["use-lite", "all-minilm-l6-v2"];

function cos(a: Float32Array, b: Float32Array): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
}

interface Scored {
  sim: number;
  relevant: boolean;
}

/** Precision, recall and F1 of "sim >= t" against the judgements. */
function prf(pairs: readonly Scored[], t: number): { p: number; r: number; f1: number } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const s of pairs) {
    if (s.sim >= t) s.relevant ? tp++ : fp++;
    else if (s.relevant) fn++;
  }
  const p = tp + fp === 0 ? 1 : tp / (tp + fp);
  const r = tp + fn === 0 ? 1 : tp / (tp + fn);
  return { p, r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r) };
}

/** The threshold, in steps of 0.01, with the best dev F1 (the lower one on a tie: it counts more). */
export function bestThreshold(pairs: readonly Scored[]): number {
  let best = -1;
  let at = 0;
  for (let k = 0; k <= 100; k++) {
    const t = k / 100;
    const { f1 } = prf(pairs, t);
    if (f1 > best + 1e-12) [best, at] = [f1, t];
  }
  return at;
}

async function evaluate(encoder: LocalEncoderName, ctx: EvalContext): Promise<string[][]> {
  const { posts, queries } = loadQuestionSimilarity();
  const postVectors = await embedCached(
    "aggregate-threshold posts",
    posts.map((p) => postEmbeddingText(p)),
    encoder,
  );
  const byId = new Map(posts.map((p, i) => [p.nativeId, postVectors[i]!]));
  const queryVectors = await embedCached(
    "aggregate-threshold queries",
    queries.map((q) => q.subject),
    encoder,
  );
  const pairsOf = (split: Query["split"]): { pairs: Scored[]; noise: number; n: number } => {
    const pairs: Scored[] = [];
    let noise = 0;
    let n = 0;
    queries.forEach((q, qi) => {
      if (q.split !== split) return;
      n++;
      const v = queryVectors[qi]!;
      for (const [id, grade] of q.grades) {
        const pv = byId.get(id);
        if (pv) pairs.push({ sim: cos(v, pv), relevant: grade >= 1 });
      }
      // Posts judged for other questions only: a count of what else the threshold lets in.
      const own = new Set(q.grades.keys());
      for (const [id, pv] of byId)
        if (!own.has(id) && cos(v, pv) >= MIN_SIMILARITY[ENCODER_MODELS[encoder].model]!) noise++;
    });
    return { pairs, noise: noise / Math.max(1, n), n };
  };
  const dev = pairsOf("dev");
  const test = pairsOf("train_part2");
  const chosen = bestThreshold(dev.pairs);
  const shipped = MIN_SIMILARITY[ENCODER_MODELS[encoder].model]!;
  const label = ENCODER_MODELS[encoder].label;
  ctx.recordData(`SemEval-2016 3B judged pairs, dev (${label})`, dev.pairs.length, `${dev.n} queries`);
  ctx.recordData(`SemEval-2016 3B judged pairs, train_part2 (${label})`, test.pairs.length, `${test.n} queries`);
  const row = (split: string, s: typeof dev, t: number): string[] => {
    const m = prf(s.pairs, t);
    return [label, split, fmt(t, 2), fmt(m.p), fmt(m.r), fmt(m.f1), fmt(s.noise, 1)];
  };
  const rows = [
    row("dev (best F1)", dev, chosen),
    row("dev (shipped)", dev, shipped),
    row("train_part2 (shipped)", test, shipped),
  ];
  ctx.recordGoal(
    `AggregatePosts threshold (${label}) is the dev-best F1`,
    `${fmt(shipped, 2)} (dev best ${fmt(chosen, 2)}; train_part2 F1 ${fmt(prf(test.pairs, shipped).f1)})`,
    Math.abs(shipped - chosen) < 1e-9,
  );
  return rows;
}

/** The AggregatePosts relevance threshold section. */
export const aggregateThresholdSection: EvalSection = {
  id: "aggregate-threshold",
  title: "AggregatePosts relevance threshold",
  method:
    "With a query, AggregatePosts counts the posts whose embedding similarity to it is at least a threshold: the similarity with the best F1 of counted-vs-relevant over the SemEval-2016 3B dev judgements, reported on train_part2. The last column counts posts judged only for other questions that still pass.",
  decisions: ["0027-aggregate-similarity-threshold.md"],
  requires: [FOLDER],
  async run(ctx) {
    const rows: string[][] = [];
    for (const e of ENCODERS) rows.push(...(await evaluate(e, ctx)));
    return [
      table(["encoder", "split", "threshold", "precision", "recall", "F1", "other posts counted / query"], rows),
    ].join("\n");
  },
};
