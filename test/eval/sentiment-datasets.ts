/**
 * Loaders for the labelled sentiment sets: GoEmotions (`group` mapping), TweetEval (SemEval-2017),
 * the Sentiment140 manual test and the VADER ground-truth tweets. Each returns plain rows so the
 * training script and the evaluation share one reading of every file format.
 */
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import type { SentimentLabel } from "../../src/model/post.js";
import { dataPath } from "./shared-data.js";

/** One labelled text. */
export interface LabelledText {
  text: string;
  label: SentimentLabel;
}

/** One text with a continuous human valence. */
export interface ValenceText {
  text: string;
  /** Mean human rating, -4..+4. */
  valence: number;
}

/** The GoEmotions `group` ids, from its labels.txt: 0 ambiguous, 1 negative, 2 neutral, 3 positive. */
const GOEMOTIONS_GROUP: Record<string, SentimentLabel | "ambiguous"> = {
  "0": "ambiguous",
  "1": "negative",
  "2": "neutral",
  "3": "positive",
};

/**
 * GoEmotions with the `group` mapping. A comment is kept only when all its labels fall in one
 * group and that group is positive, negative or neutral: `ambiguous` comments and comments whose
 * labels span groups (e.g. "1,3" negative+positive) are excluded, in training and in evaluation
 * alike. Returns the kept rows and the number excluded.
 */
export function loadGoEmotions(split: "train" | "dev" | "test"): {
  rows: (LabelledText & { id: string })[];
  excluded: number;
} {
  const lines = readFileSync(dataPath("eval/sentiment_goemotions_reddit/group", `${split}.tsv`), "utf8").split("\n");
  const rows: (LabelledText & { id: string })[] = [];
  let excluded = 0;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const [text, ids, id] = line.split("\t");
    if (text === undefined || ids === undefined) continue;
    const groups = new Set(ids.split(",").map((id) => GOEMOTIONS_GROUP[id.trim()]));
    const [only] = groups;
    if (groups.size !== 1 || only === undefined || only === "ambiguous") {
      excluded++;
      continue;
    }
    rows.push({ text, label: only, id: (id ?? "").trim() });
  }
  return { rows, excluded };
}

/**
 * GoEmotions' fine-grained emotion names per comment id (original 28-label taxonomy), for the
 * frustration head: a comment can carry several.
 */
export function loadGoEmotionNames(split: "train" | "dev" | "test"): Map<string, string[]> {
  const dir = "eval/sentiment_goemotions_reddit/original";
  const names = readFileSync(dataPath(dir, "labels.txt"), "utf8")
    .split("\n")
    .map((l) => l.trim());
  const out = new Map<string, string[]>();
  for (const line of readFileSync(dataPath(dir, `${split}.tsv`), "utf8").split("\n")) {
    const [, ids, id] = line.split("\t");
    if (ids === undefined || id === undefined) continue;
    out.set(
      id.trim(),
      ids.split(",").map((i) => names[Number(i)] ?? ""),
    );
  }
  return out;
}

const TWEETEVAL: readonly SentimentLabel[] = ["negative", "neutral", "positive"];

/** TweetEval sentiment (SemEval-2017 Task 4A): 0 negative, 1 neutral, 2 positive. */
export function loadTweetEval(split: "test" | "val"): LabelledText[] {
  const dir = "eval/sentiment_tweeteval";
  const texts = readFileSync(dataPath(dir, `${split}_text.txt`), "utf8").split("\n");
  const labels = readFileSync(dataPath(dir, `${split}_labels.txt`), "utf8").split("\n");
  const rows: LabelledText[] = [];
  labels.forEach((l, i) => {
    const label = TWEETEVAL[Number(l.trim())];
    const text = texts[i];
    if (l.trim() === "" || label === undefined || text === undefined) return;
    rows.push({ text, label });
  });
  return rows;
}

/** The Sentiment140 manual test (latin-1 CSV, polarity 0 negative, 2 neutral, 4 positive). */
export function loadSentiment140(): LabelledText[] {
  const raw = readFileSync(dataPath("eval/sentiment140_manual_test/testdata.manual.2009.06.14.csv")).toString("latin1");
  const records = parse(raw, { relax_quotes: true, relax_column_count: true }) as string[][];
  const map: Record<string, SentimentLabel> = { "0": "negative", "2": "neutral", "4": "positive" };
  const rows: LabelledText[] = [];
  for (const r of records) {
    const label = map[(r[0] ?? "").trim()];
    const text = r[r.length - 1];
    if (label !== undefined && text !== undefined) rows.push({ text, label });
  }
  return rows;
}

/** The VADER paper's tweet ground truth: id, mean valence (-4..+4), text; tab-separated. */
export function loadVaderTweets(): ValenceText[] {
  const lines = readFileSync(dataPath("eval/sentiment_vader_groundtruth/tweets_GroundTruth.txt"), "latin1").split("\n");
  const rows: ValenceText[] = [];
  for (const line of lines) {
    const [, valence, ...rest] = line.replace(/\r$/, "").split("\t");
    const text = rest.join("\t");
    if (valence === undefined || text === "" || !Number.isFinite(Number(valence))) continue;
    rows.push({ text, valence: Number(valence) });
  }
  return rows;
}
