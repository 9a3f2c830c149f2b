/**
 * The absolute relevance floor and subject similarity of FindLeads and leads monitors
 * (src/core/absolute-relevance.ts). FindLeads must return an empty page when the corpus holds
 * nothing about the ask, so the judgement is calibrated over whole-corpus pairs: every dev query
 * of SemEval-2016 Task 3 subtask B (retrieval.ts) against every one of the 1,170 threads of the
 * pool, relevant = judged PerfectMatch or Relevant for that query, every other pair (judged
 * irrelevant, or judged only for another question) not. The query is the question's subject
 * line as FindLeads reads it (lead-query.ts takes any ask frame off), embedded and covered the
 * way FindLeads does; posts are embedded as ingest embeds them. The pair (floor, subject
 * similarity), both in steps of 0.01, with the best dev F1 of "judged about the query" against
 * "relevant" is chosen; train_part2, which it never saw, is reported.
 */

import type { LocalEncoderName } from "../../../src/config.js";
import { loadConfig } from "../../../src/config.js";
import type { LeadFloor, RelevanceQuery } from "../../../src/core/absolute-relevance.js";
import {
  cosineOfUnit,
  judgeLead,
  LEAD_FLOORS,
  postWords,
  relevanceQuery,
} from "../../../src/core/absolute-relevance.js";
import { leadQuerySubject } from "../../../src/core/lead-query.js";
import { postEmbeddingText } from "../../../src/enrich/embed-text.js";
import { ENCODER_MODELS, embedCached } from "../embedding-cache.js";
import { fmt, table } from "../format.js";
import type { Query } from "../retrieval.js";
import { FOLDER, loadQuestionSimilarity } from "../retrieval.js";
import type { EvalContext, EvalSection } from "../section.js";

const ENCODERS: readonly LocalEncoderName[] = ["use-lite", "all-minilm-l6-v2"];
/** Steps of the sweep: 0.00 .. 1.00. */
const STEPS = 100;

/** One (query, post) pair as the judgement sees it. */
interface Pair {
  cosine: number;
  relevance: number;
  /** Every subject word is in the post. */
  allWords: boolean;
  relevant: boolean;
  query: number;
}

interface Prf {
  p: number;
  r: number;
  f1: number;
}

function prf(tp: number, fp: number, fn: number): Prf {
  const p = tp + fp === 0 ? 1 : tp / (tp + fp);
  const r = tp + fn === 0 ? 1 : tp / (tp + fn);
  return { p, r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r) };
}

/** Precision, recall and F1 of the judgement at `at` (judgeLead's own rule, pair by pair). */
function measure(pairs: readonly Pair[], at: LeadFloor): Prf & { passed: number[] } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const passed: number[] = [];
  for (const s of pairs) {
    const about = s.relevance >= at.floor && (s.cosine >= at.subjectSimilarity || s.allWords);
    if (about) {
      passed[s.query] = (passed[s.query] ?? 0) + 1;
      s.relevant ? tp++ : fp++;
    } else if (s.relevant) fn++;
  }
  return { ...prf(tp, fp, fn), passed };
}

/**
 * The (floor, subject similarity) with the best F1; on a tie the lower subject similarity, then
 * the lower floor (they let more through). Per subject similarity, one pass buckets the pairs
 * that match the subject by relevance, and the floors are swept over the buckets from the top.
 */
export function bestFloor(pairs: readonly Pair[]): LeadFloor & { f1: number } {
  const totalRelevant = pairs.filter((p) => p.relevant).length;
  let best = { floor: 0, subjectSimilarity: 0, f1: -1 };
  for (let s = 0; s <= STEPS; s++) {
    const sim = s / STEPS;
    const rel = new Int32Array(STEPS + 1);
    const non = new Int32Array(STEPS + 1);
    for (const p of pairs) {
      if (!(p.cosine >= sim || p.allWords)) continue;
      // The highest floor k/STEPS the relevance reaches (the epsilon absorbs k/100's rounding).
      const k = Math.min(STEPS, Math.max(0, Math.floor(p.relevance * STEPS + 1e-9)));
      (p.relevant ? rel : non)[k]!++;
    }
    let tp = 0;
    let fp = 0;
    const atFloor: { f1: number; floor: number }[] = [];
    for (let k = STEPS; k >= 0; k--) {
      tp += rel[k]!;
      fp += non[k]!;
      atFloor.push({ f1: prf(tp, fp, totalRelevant - tp).f1, floor: k / STEPS });
    }
    for (const { f1, floor } of atFloor.reverse())
      if (f1 > best.f1 + 1e-12) best = { floor, subjectSimilarity: sim, f1 };
  }
  return best;
}

async function evaluate(encoder: LocalEncoderName, ctx: EvalContext): Promise<string[][]> {
  const { posts, queries } = loadQuestionSimilarity();
  const alphas = loadConfig({});
  const postVectors = await embedCached(
    "leads-floor posts",
    posts.map((p) => postEmbeddingText(p)),
    encoder,
  );
  const words = posts.map((p) => postWords(p));
  const subjects = queries.map((q) => leadQuerySubject(q.subject));
  const queryVectors = await embedCached("leads-floor queries", subjects, encoder);
  const prepared: RelevanceQuery[] = subjects.map((s) => relevanceQuery(s, alphas));
  const pairsOf = (split: Query["split"]): { pairs: Pair[]; n: number } => {
    const pairs: Pair[] = [];
    let n = 0;
    queries.forEach((q, qi) => {
      if (q.split !== split) return;
      n++;
      const rq = prepared[qi]!;
      posts.forEach((p, pi) => {
        const cos = cosineOfUnit(queryVectors[qi]!, postVectors[pi]!);
        // judgeLead with a subject similarity above any cosine tells whether the words alone match.
        const wordsOnly = judgeLead(rq, cos, words[pi]!, { floor: 0, subjectSimilarity: 2 });
        pairs.push({
          cosine: cos,
          relevance: wordsOnly.relevance,
          allWords: wordsOnly.about,
          relevant: (q.grades.get(p.nativeId) ?? 0) >= 1,
          query: qi,
        });
      });
    });
    return { pairs, n };
  };
  const dev = pairsOf("dev");
  const test = pairsOf("train_part2");
  const { model, label } = ENCODER_MODELS[encoder];
  const chosen = bestFloor(dev.pairs);
  const shipped = LEAD_FLOORS[model]!;
  // The floor alone (no subject rule) and the cosine alone, each at its own dev best, for comparison.
  const floorOnly = bestFloor(dev.pairs.map((p) => ({ ...p, allWords: true })));
  const cosineOnly = bestFloor(dev.pairs.map((p) => ({ ...p, relevance: 1, allWords: false })));
  ctx.recordData(
    `SemEval-2016 3B whole-pool pairs, dev (${label})`,
    dev.pairs.length,
    `${dev.n} queries x ${posts.length} threads`,
  );
  ctx.recordData(
    `SemEval-2016 3B whole-pool pairs, train_part2 (${label})`,
    test.pairs.length,
    `${test.n} queries x ${posts.length} threads`,
  );
  const row = (rule: string, split: string, s: typeof dev, at: LeadFloor): string[] => {
    const m = measure(s.pairs, at);
    const counts = queries.flatMap((q, qi) =>
      q.split === (split.startsWith("dev") ? "dev" : "train_part2") ? [m.passed[qi] ?? 0] : [],
    );
    const empty = counts.filter((c) => c === 0).length;
    const sorted = [...counts].sort((a, b) => a - b);
    return [
      label,
      rule,
      split,
      fmt(at.floor, 2),
      fmt(at.subjectSimilarity, 2),
      fmt(m.p),
      fmt(m.r),
      fmt(m.f1),
      String(sorted[Math.floor(sorted.length / 2)] ?? 0),
      `${empty} of ${counts.length}`,
    ];
  };
  const held = measure(test.pairs, shipped);
  ctx.recordGoal(
    `FindLeads floor and subject similarity (${label}) are the dev-best F1`,
    `${fmt(shipped.floor, 2)} / ${fmt(shipped.subjectSimilarity, 2)} (dev best ${fmt(chosen.floor, 2)} / ${fmt(chosen.subjectSimilarity, 2)}; train_part2 F1 ${fmt(held.f1)})`,
    Math.abs(shipped.floor - chosen.floor) < 1e-9 &&
      Math.abs(shipped.subjectSimilarity - chosen.subjectSimilarity) < 1e-9,
  );
  return [
    row("floor + subject (dev best)", "dev", dev, chosen),
    row("floor + subject (shipped)", "dev", dev, shipped),
    row("floor + subject (shipped)", "train_part2", test, shipped),
    row("floor alone (dev best)", "dev", dev, { floor: floorOnly.floor, subjectSimilarity: 0 }),
    row("floor alone (dev best)", "train_part2", test, { floor: floorOnly.floor, subjectSimilarity: 0 }),
    row("cosine alone (dev best)", "dev", dev, { floor: 0, subjectSimilarity: cosineOnly.subjectSimilarity }),
    row("cosine alone (dev best)", "train_part2", test, { floor: 0, subjectSimilarity: cosineOnly.subjectSimilarity }),
  ];
}

/** The FindLeads absolute relevance floor section. */
export const leadsFloorSection: EvalSection = {
  id: "leads-floor",
  title: "FindLeads absolute relevance floor",
  method:
    "Every SemEval-2016 3B question's subject line is paired with every thread of the pool; a pair is relevant when judged PerfectMatch or Relevant. The floor on the absolute relevance and the subject similarity are swept together and chosen as the dev-best F1 per encoder; train_part2 is only reported.",
  decisions: ["0016-absolute-lead-relevance.md"],
  requires: [FOLDER],
  async run(ctx) {
    const rows: string[][] = [];
    for (const e of ENCODERS) rows.push(...(await evaluate(e, ctx)));
    return [
      "FindLeads and leads monitors keep a post only when it is about the query, judged on the post",
      "alone (src/core/absolute-relevance.ts): relevance = alpha x cosine + (1 - alpha) x coverage of the",
      "query's words must reach a floor, and the query's subject must match (every subject word in the",
      "post, or cosine at least a subject similarity). Both values (steps of 0.01) are the pair with the",
      "best F1 of kept-vs-relevant over whole-pool pairs of the SemEval-2016 3B dev questions: every",
      "question (its subject line, ask frame removed as FindLeads does) against all 1,170 threads,",
      "relevant = judged PerfectMatch or Relevant for it, every other thread not (most were judged for",
      "another question only, so a few are relevant but unjudged, which holds precision down). train_part2",
      "is reported, never tuned on. The floor alone and the cosine alone, each at its own dev best, show",
      "what each half adds. The last two columns: the median number of the 1,170 threads a question",
      "keeps, and how many questions keep none (an empty FindLeads page).",
      "",
      table(
        [
          "encoder",
          "rule",
          "split",
          "floor",
          "subject similarity",
          "precision",
          "recall",
          "F1",
          "kept / query (median)",
          "queries keeping none",
        ],
        rows,
      ),
    ].join("\n");
  },
};
