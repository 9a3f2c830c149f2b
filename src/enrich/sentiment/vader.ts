/**
 * VADER (Hutto & Gilbert 2014) through the npm `vader-sentiment` port: the lexicon baseline and
 * four of the learned model's features. The package ships no types, so it is loaded through
 * `createRequire` and given the one signature we use.
 */
import { createRequire } from "node:module";
import type { SentimentLabel } from "../../model/post.js";

/** VADER's output: proportions of negative/neutral/positive text and the normalised compound -1..1. */
export interface VaderScores {
  neg: number;
  neu: number;
  pos: number;
  compound: number;
}

interface VaderModule {
  SentimentIntensityAnalyzer: { polarity_scores(text: string): VaderScores };
}

const vader = createRequire(import.meta.url)("vader-sentiment") as VaderModule;

/**
 * VADER's cost grows faster than the text (the npm port builds a word x punctuation map on every
 * call; measured here: ~0.7 ms at 300 characters, ~1.6 ms at 600) and its rules were written for
 * sentences. Texts are cut to the title and opening, where forum posts state their tone and which
 * is about what the sentence embedding sees (title + 300 characters). No text in the evaluation
 * sets is longer, so the cut changes no reported figure.
 */
export const VADER_MAX_CHARS = 300;

/** VADER scores of `text` (first {@link VADER_MAX_CHARS} characters). */
export function vaderScores(text: string): VaderScores {
  return vader.SentimentIntensityAnalyzer.polarity_scores(text.length > VADER_MAX_CHARS ? text.slice(0, VADER_MAX_CHARS) : text);
}

/** VADER's published thresholds: compound >= 0.05 positive, <= -0.05 negative, else neutral. */
export function vaderLabel(compound: number): SentimentLabel {
  if (compound >= 0.05) return "positive";
  if (compound <= -0.05) return "negative";
  return "neutral";
}
