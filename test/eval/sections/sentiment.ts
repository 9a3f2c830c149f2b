/**
 * Sentiment: our model (softmax over USE-lite + VADER features, trained on GoEmotions train) next
 * to the VADER baseline on four human-labelled sets: macro-F1 and per-class F1 on GoEmotions
 * `group` test, TweetEval test and the Sentiment140 manual test, and Pearson's r of the score
 * with the VADER paper's mean human valence for 4,200 tweets.
 */

import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import { loadSentimentModel } from "../../../src/enrich/sentiment/model-file.js";
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
    const model = loadSentimentModel();
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
      `Model: softmax regression over [USE-lite 512-d embedding, ${model.lexiconFeatures.join(", ")}], trained by`,
      `\`scripts/train-sentiment.ts\` on GoEmotions train (${model.provenance.trainRows} comments, Apache-2.0). The hyper-parameters (L2`,
      `${model.hyperparameters.l2}, class weights ${JSON.stringify(model.hyperparameters.classWeights)}) and a class-prior correction (logit offsets`,
      `${JSON.stringify(model.classOffsets)} for ${model.softmax.classes.join("/")}) were chosen by macro-F1 on GoEmotions dev alone`,
      `(${pts(model.devMacroF1)}); no other labelled set was read in training or selection, and the test splits below were used`,
      "for this report only. Label = argmax of the corrected P(negative), P(neutral), P(positive);",
      "score = P(positive) - P(negative), in -1..1. Baseline: VADER (npm `vader-sentiment`) with its published",
      "thresholds (compound >= 0.05 positive, <= -0.05 negative) and compound as the score.",
      "GoEmotions: comments labelled `ambiguous`, or with labels in more than one group, are excluded.",
      "GoEmotions train is the only split whose terms allow training; TweetEval, Sentiment140 and the VADER",
      "ground truth are for measuring only, which is why no model is trained or tuned on them. (An earlier",
      "model chose its hyper-parameters partly on TweetEval validation; it was retrained without it.)",
      "Tried and not adopted (2026-11-24): the same model trained also on the VADER ground truth's non-tweet sentences",
      "(Amazon and movie reviews, New York Times editorials, MIT; valence <= -0.5 negative, >= 0.5 positive), selected",
      "on GoEmotions dev and a held-back fifth of those sentences, was scored once on the test splits below: GoEmotions",
      "67.9, TweetEval 48.8 (negative F1 28.2), Sentiment140 68.9, Pearson r 0.875, each below the model kept here.",
      "Nor is the tweet gap a shift in class priors that unlabelled tweets could correct (test/eval/prior-shift.ts,",
      "2026-11-24: EM re-estimation of the priors on TweetEval validation's texts, labels unread, then the test split",
      "re-weighted): the estimate went to neutral 0.87 and negative 0.00 against a true 0.48 and 0.32, and macro-F1 fell",
      "from 51.2 to 30.4 (on GoEmotions dev -> test, the control, 70.3 -> 70.4). The tweets' negatives read as neutral to",
      "a model of Reddit comments: a change in what negative looks like, which only labelled tweets could teach.",
      "Retrained 2026-11-28 when the features began reading typographic apostrophes as ASCII ones (features.ts: VADER's",
      "negations are ASCII, and GoEmotions train holds 6,671 of U+2019), with the same grid and selection: the",
      "model before it (L2 0.001, class weights [1,1,1], offsets [0.4,0.2,0], dev 70.0) scored GoEmotions 70.3,",
      "TweetEval 51.2 and Sentiment140 69.6 on the test splits, Pearson r 0.882; the dev scores of the best settings",
      "differed by under 0.2 points, so the change of settings is the grid's tie-break as much as the feature's doing.",
      "",
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
      "TweetEval's official metric is macro-averaged recall (shown above); SemEval-2017 Task 4A systems are",
      "ranked by it. GoEmotions' own sentiment-level BERT baseline used four classes (with ambiguous), so it",
      "is not directly comparable with the three-class figure here.",
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
      "VADER's own lexicon was built and validated against this ground truth, so it is the home side here.",
    ].join("\n");
  },
};
