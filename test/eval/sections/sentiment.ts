/**
 * Sentiment: our model (softmax over USE-lite + VADER features, trained on GoEmotions train) next
 * to the VADER baseline on four human-labelled sets: macro-F1 and per-class F1 on GoEmotions
 * `group` test, TweetEval test and the Sentiment140 manual test, and Pearson's r of the score
 * with the VADER paper's mean human valence for 4,200 tweets.
 */

import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import { vaderLabel, vaderScores } from "../../../src/enrich/sentiment/vader.js";
import { SENTIMENT_LABELS, type SentimentLabel } from "../../../src/model/post.js";
import { embedCached } from "../embedding-cache.js";
import { fmt, goal, pts, table } from "../format.js";
import { multiclass, pearson } from "../metrics.js";
import type { EvalContext, EvalSection } from "../section.js";
import {
  type LabelledText,
  loadGoEmotions,
  loadSentiment140,
  loadTweetEval,
  loadVaderTweets,
} from "../sentiment-datasets.js";

const LABELS: readonly SentimentLabel[] = SENTIMENT_LABELS;
/** Required margin over VADER on GoEmotions and TweetEval, in macro-F1 points. */
const GOAL_POINTS = 5;

interface Scored {
  ours: { label: SentimentLabel; score: number }[];
  vader: { label: SentimentLabel; score: number }[];
}

async function score(name: string, texts: readonly string[]): Promise<Scored> {
  const classifier = createSentimentClassifier();
  const vectors = await embedCached(name, texts);
  const ours = await classifier.classify(texts, vectors);
  const vader = texts.map((t) => {
    const c = vaderScores(t).compound;
    return { label: vaderLabel(c), score: c };
  });
  return { ours, vader };
}

function macroRecall(gold: readonly SentimentLabel[], pred: readonly SentimentLabel[]): number {
  const r = multiclass(gold, pred, LABELS);
  return LABELS.reduce((s, l) => s + r.perClass[l].recall, 0) / LABELS.length;
}

async function labelled(name: string, rows: readonly LabelledText[]) {
  const gold = rows.map((r) => r.label);
  const s = await score(
    name,
    rows.map((r) => r.text),
  );
  const ours = multiclass(
    gold,
    s.ours.map((o) => o.label),
    LABELS,
  );
  const vader = multiclass(
    gold,
    s.vader.map((o) => o.label),
    LABELS,
  );
  return {
    ours,
    vader,
    oursRecall: macroRecall(
      gold,
      s.ours.map((o) => o.label),
    ),
    vaderRecall: macroRecall(
      gold,
      s.vader.map((o) => o.label),
    ),
  };
}

export const sentimentSection: EvalSection = {
  id: "sentiment",
  title: "Sentiment",
  method:
    "Softmax regression over the USE-lite embedding and VADER's lexicon features, trained by scripts/train-sentiment.ts on GoEmotions train, its settings chosen on GoEmotions dev alone; the test splits are only reported. Baseline: VADER with its published thresholds. Macro-F1 per set and class, and Pearson r of the score against the VADER ground truth's mean ratings.",
  decisions: ["0022-sentiment-from-goemotions-alone.md"],
  requires: [
    "eval/sentiment_goemotions_reddit/group/test.tsv",
    "eval/sentiment_tweeteval/test_text.txt",
    "eval/sentiment140_manual_test/testdata.manual.2009.06.14.csv",
    "eval/sentiment_vader_groundtruth/tweets_GroundTruth.txt",
  ],
  async run(ctx: EvalContext) {
    const goe = loadGoEmotions("test");
    const tweeteval = loadTweetEval("test");
    const s140 = loadSentiment140();
    const vaderGt = loadVaderTweets();
    ctx.recordData(
      "GoEmotions group test",
      goe.rows.length,
      `${goe.excluded} ambiguous or multi-group comments excluded`,
    );
    ctx.recordData("TweetEval sentiment test", tweeteval.length, "SemEval-2017 Task 4A");
    ctx.recordData("Sentiment140 manual test", s140.length, "latin-1, 0/2/4");
    ctx.recordData("VADER ground truth tweets", vaderGt.length, "mean valence -4..+4");

    const sets = [
      { name: "GoEmotions group test", key: "goemotions-test", rows: goe.rows, goal: true },
      { name: "TweetEval test", key: "tweeteval-test", rows: tweeteval, goal: true },
      { name: "Sentiment140 manual test", key: "sentiment140", rows: s140, goal: false },
    ];
    const summary: string[][] = [];
    const perClass: string[][] = [];
    const goals: string[] = [];
    for (const set of sets) {
      const r = await labelled(set.key, set.rows);
      const gap = 100 * (r.ours.macroF1 - r.vader.macroF1);
      summary.push([
        set.name,
        String(set.rows.length),
        pts(r.vader.macroF1),
        pts(r.ours.macroF1),
        `${gap >= 0 ? "+" : ""}${fmt(gap, 1)}`,
        `${pts(r.vaderRecall)} / ${pts(r.oursRecall)}`,
        `${pts(r.vader.accuracy)} / ${pts(r.ours.accuracy)}`,
      ]);
      for (const l of LABELS) {
        perClass.push([
          set.name,
          l,
          String(r.ours.perClass[l].support),
          pts(r.vader.perClass[l].f1),
          pts(r.ours.perClass[l].f1),
        ]);
      }
      if (set.goal) {
        goals.push(
          `- ${set.name}: ${gap >= 0 ? "+" : ""}${fmt(gap, 1)} points over VADER (goal +${GOAL_POINTS}): ${goal(gap >= GOAL_POINTS)}`,
        );
        ctx.recordGoal(
          `sentiment macro-F1, ${set.name}: VADER + ${GOAL_POINTS} points`,
          `${pts(r.ours.macroF1)} vs VADER ${pts(r.vader.macroF1)}`,
          gap >= GOAL_POINTS,
        );
      }
    }

    const gt = await score(
      "vader-tweets",
      vaderGt.map((r) => r.text),
    );
    const valence = vaderGt.map((r) => r.valence);
    const rVader = pearson(
      valence,
      gt.vader.map((v) => v.score),
    );
    const rOurs = pearson(
      valence,
      gt.ours.map((v) => v.score),
    );

    return [
      table(
        [
          "set",
          "n",
          "VADER macro-F1",
          "ours macro-F1",
          "gain (points)",
          "macro-recall VADER / ours",
          "accuracy VADER / ours",
        ],
        summary,
      ),
      "",
      ...goals,
      "",
      "Per-class F1:",
      "",
      table(["set", "class", "support", "VADER F1", "ours F1"], perClass),
      "",
      `Correlation with people (VADER ground truth, ${vaderGt.length} tweets, mean valence of 10 raters):`,
      "",
      table(
        ["score", "Pearson r"],
        [
          ["VADER compound (baseline)", fmt(rVader)],
          ["ours: P(positive) - P(negative)", fmt(rOurs)],
        ],
      ),
      "",
    ].join("\n");
  },
};
