/**
 * The sentiment model's input: the post's sentence embedding followed by lexicon features (VADER's
 * four scores over the text, its most negative and most positive sentence, and three surface
 * cues). Training and inference both build features here, so they cannot drift apart.
 */
import { straightApostrophes } from "../apostrophes.js";
import { VADER_MAX_CHARS, vaderScores } from "./vader.js";

/** Names of the trailing lexicon features, in order. */
export const LEXICON_FEATURES = [
  "vader.compound",
  "vader.pos",
  "vader.neg",
  "vader.neu",
  "vader.minSentence",
  "vader.maxSentence",
  "exclamation",
  "question",
  "negation",
] as const;

/** Sentences scored on their own; longer texts keep their opening ones (VADER's cost is per sentence). */
const MAX_SENTENCES = 6;
const NEGATION = /\b(?:not|no|never|nothing|nobody|none|nowhere|neither|nor|cannot)\b|n't\b/i;

/**
 * One strongly worded sentence in an otherwise flat comment is what a whole-text compound averages
 * away; its min and max (clamped to 0 so a text without any keeps 0) let the model see it.
 */
function sentenceExtremes(text: string, wholeCompound: number): [number, number] {
  const sentences = text
    .slice(0, VADER_MAX_CHARS)
    .split(/(?<=[.!?])\s+/)
    .filter((s) => s.trim() !== "")
    .slice(0, MAX_SENTENCES);
  // One sentence: the whole text's compound, already computed by the caller.
  if (sentences.length <= 1) return [Math.min(0, wholeCompound), Math.max(0, wholeCompound)];
  let min = 0;
  let max = 0;
  for (const s of sentences) {
    const c = vaderScores(s).compound;
    if (c < min) min = c;
    if (c > max) max = c;
  }
  return [min, max];
}

/** Feature vector for `text` with its embedding `vector`: [...vector, ...LEXICON_FEATURES]. */
export function sentimentFeatures(raw: string, vector: Float32Array): Float64Array {
  // VADER's negations are ASCII ("doesn't"): "doesn’t like it" must read as negated.
  const text = straightApostrophes(raw);
  const v = vaderScores(text);
  const [min, max] = sentenceExtremes(text, v.compound);
  const head = text.slice(0, VADER_MAX_CHARS);
  const out = new Float64Array(vector.length + LEXICON_FEATURES.length);
  out.set(vector);
  const at = vector.length;
  out[at] = v.compound;
  out[at + 1] = v.pos;
  out[at + 2] = v.neg;
  out[at + 3] = v.neu;
  out[at + 4] = min;
  out[at + 5] = max;
  out[at + 6] = head.includes("!") ? 1 : 0;
  out[at + 7] = head.includes("?") ? 1 : 0;
  out[at + 8] = NEGATION.test(head) ? 1 : 0;
  return out;
}
