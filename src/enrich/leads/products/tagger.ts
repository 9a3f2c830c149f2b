/**
 * The product tagger: finds the span naming what a lead is about when the gazetteer and the kinds
 * of things of product.ts name nothing ("a gaming PC", "a torrent client", "Swype"). Each token
 * of the sentences read (the focus sentence, then the title) is tagged B, I or O (begins, inside,
 * outside the target) by an averaged perceptron (perceptron.ts) over the word, its neighbours,
 * its shape, whether the gazetteer lists it and the tag before it, decoded left to right. The
 * spans found are scored by their tokens' mean margin over O, and the best one is kept when that
 * score reaches the model's threshold (chosen on the dev split by scripts/train-product-tagger.ts).
 */
import { KIND_WORDS } from "../gazetteer.js";
import { argmax, type PerceptronWeights, scoreClasses } from "./perceptron.js";

/** Tags in the model's class order. */
export const TAGS = ["O", "B", "I"] as const;
const O = 0;
const B = 1;
const I = 2;

/** One word of a sentence, with where it stands. */
export interface Token {
  text: string;
  lower: string;
  start: number;
  end: number;
}

/**
 * Words, keeping the marks inside product names together: "node.js", "c++", "c#", "hyper-v",
 * "authorize.net", "can't". Everything else (spaces, punctuation) separates.
 */
const WORD = /[\p{L}\p{N}]+(?:['.+#&-][\p{L}\p{N}]+)*[+#]*/gu;

/** The tokens of `text`. */
export function tokenize(text: string): Token[] {
  return [...text.matchAll(WORD)].map((m) => ({
    text: m[0],
    lower: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));
}

/** Where a sentence stands in the post: the one carrying the intent, or a title sentence. */
export type SentenceRole = "focus" | "title";

/** One sentence as the tagger reads it. */
export interface TaggerSentence {
  text: string;
  role: SentenceRole;
  /** Token positions inside a gazetteer name (gazetteer.ts), as [start, end) token ranges. */
  listed: readonly (readonly [number, number])[];
}

/** A word's shape: capitals as A, lower case as a, digits as 9, runs collapsed ("iPhone" -> "aAa"). */
function shape(word: string): string {
  return word
    .replace(/\p{Lu}/gu, "A")
    .replace(/\p{Ll}/gu, "a")
    .replace(/\p{N}/gu, "9")
    .replace(/(.)\1+/g, "$1");
}

/** Whether `word` (lower case, or its singular) heads a kind of thing the gazetteer knows. */
function kindWord(word: string): boolean {
  return KIND_WORDS.has(word) || (word.endsWith("s") && KIND_WORDS.has(word.slice(0, -1)));
}

/** The features of token `i` of `tokens`, given the tag decided for the token before it. */
export function tokenFeatures(
  tokens: readonly Token[],
  i: number,
  sentence: TaggerSentence,
  inListed: readonly boolean[],
  prevTag: number,
): string[] {
  const w = (k: number): string => (k < 0 ? "<s>" : k >= tokens.length ? "</s>" : tokens[k]!.lower);
  const t = tokens[i]!;
  const prev = TAGS[prevTag]!;
  const cur = w(i);
  return [
    "bias",
    `w=${cur}`,
    `p1=${w(i - 1)}`,
    `n1=${w(i + 1)}`,
    `p2=${w(i - 2)}`,
    `n2=${w(i + 2)}`,
    `p1w=${w(i - 1)}|${cur}`,
    `wn1=${cur}|${w(i + 1)}`,
    `suf=${cur.slice(-3)}`,
    `shape=${shape(t.text)}`,
    i > 0 && /^\p{Lu}/u.test(t.text) ? "cap" : "nocap",
    inListed[i] ? "listed" : "unlisted",
    `role=${sentence.role}`,
    kindWord(cur) ? "kind" : "notkind",
    kindWord(w(i + 1)) ? "kind+1" : "notkind+1",
    `l=${w(i - 3)}`,
    `l=${w(i - 2)}`,
    `l=${w(i - 1)}`,
    /^\p{Lu}{2,}$/u.test(t.text) ? "allcaps" : "notallcaps",
    `t-1=${prev}`,
    `t-1w=${prev}|${cur}`,
    `t-1p1=${prev}|${w(i - 1)}`,
  ];
}

/** A span the tagger found, with its score (the mean margin of its tags over O). */
export interface TaggedSpan {
  text: string;
  /** Index of the sentence in the list given. */
  sentence: number;
  start: number;
  end: number;
  score: number;
}

/** The product tagger's model: perceptron weights per feature and the span threshold. */
export interface ProductTaggerModel {
  weights: PerceptronWeights;
  threshold: number;
}

/** Scores function of a tagger: the class scores of one token's features (the trainer passes its own). */
export type ScoreFn = (features: readonly string[]) => number[];

/** Tags one sentence left to right with `score`; returns the tags and each token's scores. */
export function decode(
  tokens: readonly Token[],
  sentence: TaggerSentence,
  score: ScoreFn,
): { tags: number[]; scores: number[][] } {
  const inListed = tokens.map((_, i) => sentence.listed.some(([a, b]) => i >= a && i < b));
  const tags: number[] = [];
  const scores: number[][] = [];
  for (let i = 0; i < tokens.length; i++) {
    const s = score(tokenFeatures(tokens, i, sentence, inListed, i === 0 ? O : tags[i - 1]!));
    let tag = argmax(s);
    // An I with nothing open begins a span.
    if (tag === I && (i === 0 || tags[i - 1] === O)) tag = B;
    tags.push(tag);
    scores.push(s);
  }
  return { tags, scores };
}

/** The spans of a tagged sentence, each scored by its tokens' mean margin over O. */
function spansOf(
  text: string,
  tokens: readonly Token[],
  tags: readonly number[],
  scores: readonly number[][],
  sentence: number,
): TaggedSpan[] {
  const out: TaggedSpan[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tags[i] !== B) continue;
    let j = i + 1;
    while (j < tokens.length && tags[j] === I) j++;
    let margin = 0;
    for (let k = i; k < j; k++) margin += scores[k]![tags[k]!]! - scores[k]![O]!;
    const start = tokens[i]!.start;
    const end = tokens[j - 1]!.end;
    out.push({ text: text.slice(start, end), sentence, start, end, score: margin / (j - i) });
  }
  return out;
}

/** Every span the tagger finds in `sentences`, best first (ties keep reading order). */
export function tagSpans(model: ProductTaggerModel, sentences: readonly TaggerSentence[]): TaggedSpan[] {
  const score: ScoreFn = (f) => scoreClasses(model.weights, f, TAGS.length);
  const all = sentences.flatMap((s, n) => {
    const tokens = tokenize(s.text);
    const { tags, scores } = decode(tokens, s, score);
    return spansOf(s.text, tokens, tags, scores, n);
  });
  return all
    .map((s, k) => [s, k] as const)
    .sort(([a, i], [b, j]) => b.score - a.score || i - j)
    .map(([s]) => s);
}

/** The best span reaching the model's threshold, or undefined. */
export function bestSpan(model: ProductTaggerModel, sentences: readonly TaggerSentence[]): TaggedSpan | undefined {
  const best = tagSpans(model, sentences)[0];
  return best !== undefined && best.score >= model.threshold ? best : undefined;
}
