/**
 * Sentiment: each bundled encoder's model (class-balanced logistic regression over the encoder's
 * vector plus lexicon features, trained on GoEmotions train) beside VADER and the model shipped
 * before them, on four human-labelled sets: macro-F1 and per-class F1 on GoEmotions `group` test,
 * TweetEval test and the Sentiment140 manual test, and Pearson's r of the score with the VADER
 * paper's mean human valence for 4,200 tweets.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { LocalEncoderName } from "../../../src/config.js";
import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import { checkSentimentModel } from "../../../src/enrich/sentiment/model-file.js";
import { vaderLabel, vaderScores } from "../../../src/enrich/sentiment/vader.js";
import { SENTIMENT_LABELS, type SentimentLabel } from "../../../src/model/post.js";
import { ENCODER_MODELS, embedCached } from "../embedding-cache.js";
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

/** The model shipped before the per-encoder ones (USE-lite; settings and class offsets from GoEmotions dev). */
const PREVIOUS_MODEL = fileURLToPath(new URL("../sentiment-previous-model.json", import.meta.url));

/** What is scored: VADER, the earlier model and one model per bundled encoder. */
interface Scorer {
  name: string;
  /** Whether the goals judge it (the models this change ships). */
  judged: boolean;
  classify(key: string, texts: readonly string[]): Promise<{ label: SentimentLabel; score: number }[]>;
}

function modelScorer(name: string, encoder: LocalEncoderName, previous: boolean): Scorer {
  const classifier = createSentimentClassifier(
    previous
      ? { model: checkSentimentModel(JSON.parse(readFileSync(PREVIOUS_MODEL, "utf8")), PREVIOUS_MODEL) }
      : { embeddingModel: ENCODER_MODELS[encoder].model },
  );
  return {
    name,
    judged: !previous,
    async classify(key, texts) {
      return classifier.classify(texts, await embedCached(key, texts, encoder));
    },
  };
}

const VADER: Scorer = {
  name: "VADER",
  judged: false,
  async classify(_key, texts) {
    return texts.map((t) => {
      const c = vaderScores(t).compound;
      return { label: vaderLabel(c), score: c };
    });
  },
};

/** Goal sets and the margin over VADER each must reach, in macro-F1 points. */
const GOAL_POINTS: Record<string, number> = { "GoEmotions group test": 10, "TweetEval test": 5 };

function macroRecall(gold: readonly SentimentLabel[], pred: readonly SentimentLabel[]): number {
  const r = multiclass(gold, pred, LABELS);
  return LABELS.reduce((s, l) => s + r.perClass[l].recall, 0) / LABELS.length;
}

export const sentimentSection: EvalSection = {
  id: "sentiment",
  title: "Sentiment",
  method:
    "One model per bundled encoder: a class-balanced multinomial logistic regression over the encoder's vector and nine lexicon features (VADER's scores, sentence extremes, !, ?, negation), trained by scripts/train-sentiment.ts on GoEmotions train, its L2 and a multiplier of the lexicon features chosen on a held-out fifth of that split; every test split here is only reported. Beside them, VADER with its published thresholds (the baseline) and the USE-lite model shipped before, whose settings came from GoEmotions dev. Macro-F1 and per-class F1 per set, TweetEval's macro-recall, and Pearson r of the score against the VADER ground truth's mean ratings.",
  decisions: ["0031-sentiment-per-encoder-regression.md", "0022-sentiment-from-goemotions-alone.md"],
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

    const scorers: Scorer[] = [
      VADER,
      modelScorer("previous model (USE-lite)", "use-lite", true),
      ...(Object.keys(ENCODER_MODELS) as LocalEncoderName[]).map((e) =>
        modelScorer(`LR ${ENCODER_MODELS[e].label}`, e, false),
      ),
    ];
    const names = scorers.map((s) => s.name);
    const sets = [
      { name: "GoEmotions group test", key: "goemotions-test", rows: goe.rows },
      { name: "TweetEval test", key: "tweeteval-test", rows: tweeteval },
      { name: "Sentiment140 manual test", key: "sentiment140", rows: s140 },
    ];
    const summary: string[][] = [];
    const recall: string[][] = [];
    const perClass: string[][] = [];
    const goals: string[] = [];
    for (const set of sets) {
      const gold = set.rows.map((r: LabelledText) => r.label);
      const texts = set.rows.map((r: LabelledText) => r.text);
      const results = [];
      for (const s of scorers) {
        const pred = (await s.classify(set.key, texts)).map((o) => o.label);
        results.push({ scorer: s, m: multiclass(gold, pred, LABELS), recall: macroRecall(gold, pred) });
      }
      const vader = results[0]!.m;
      summary.push([set.name, String(set.rows.length), ...results.map((r) => pts(r.m.macroF1))]);
      recall.push([set.name, ...results.map((r) => pts(r.recall)), ...results.map((r) => pts(r.m.accuracy))]);
      for (const l of LABELS) {
        perClass.push([set.name, l, String(vader.perClass[l].support), ...results.map((r) => pts(r.m.perClass[l].f1))]);
      }
      const need = GOAL_POINTS[set.name];
      if (need === undefined) continue;
      for (const r of results.slice(1)) {
        const gap = 100 * (r.m.macroF1 - vader.macroF1);
        const met = gap >= need;
        goals.push(
          `- ${set.name}, ${r.scorer.name}: ${gap >= 0 ? "+" : ""}${fmt(gap, 1)} points over VADER (goal +${need}): ${goal(met)}`,
        );
        if (r.scorer.judged) {
          ctx.recordGoal(
            `sentiment macro-F1, ${set.name}, ${r.scorer.name}: VADER + ${need} points`,
            `${pts(r.m.macroF1)} vs VADER ${pts(vader.macroF1)}`,
            met,
          );
        }
      }
    }

    const valence = vaderGt.map((r) => r.valence);
    const gtTexts = vaderGt.map((r) => r.text);
    const correlation: string[][] = [];
    for (const s of scorers) {
      const scores = (await s.classify("vader-tweets", gtTexts)).map((o) => o.score);
      correlation.push([
        s === VADER ? "VADER compound (baseline)" : `${s.name}: P(positive) - P(negative)`,
        fmt(pearson(valence, scores)),
      ]);
    }

    return [
      "Macro-F1 (points):",
      "",
      table(["set", "n", ...names], summary),
      "",
      ...goals,
      "",
      "TweetEval's official metric is macro-averaged recall (SemEval-2017 Task 4A ranks by it); macro-recall, then accuracy:",
      "",
      table(["set", ...names.map((n) => `${n} recall`), ...names.map((n) => `${n} accuracy`)], recall),
      "",
      "Per-class F1:",
      "",
      table(["set", "class", "support", ...names], perClass),
      "",
      `Correlation with people (VADER ground truth, ${vaderGt.length} tweets, mean valence of 10 raters):`,
      "",
      table(["score", "Pearson r"], correlation),
      "",
      "VADER's own lexicon was built and validated against this ground truth, so it is the home side there.",
      "GoEmotions' own sentiment-level BERT baseline used four classes (with ambiguous), so it is not",
      "directly comparable with the three-class figures here.",
      "",
    ].join("\n");
  },
};
