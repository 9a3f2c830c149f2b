/**
 * VADER (Hutto & Gilbert 2014): the lexicon baseline and four of the learned model's features.
 * Scored by vader-rules.ts, which gives what the npm `vader-sentiment` port gives (the package
 * stays a dependency: its lexicon file is read, and the tests compare against it) several
 * times faster.
 */
import type { SentimentLabel } from "../../model/post.js";
import type { VaderScores } from "./vader-rules.js";
import { vaderPolarity } from "./vader-rules.js";

export type { VaderScores } from "./vader-rules.js";

/**
 * Texts are cut to the title and opening, where forum posts state their tone and which is about
 * what the sentence embedding sees (title + 300 characters); VADER's rules were written for
 * sentences. The cut was made when scoring went through the npm port, whose cost grew faster than
 * the text (~0.7 ms at 300 characters, ~1.6 ms at 600); it stays, as the sentiment model was
 * trained and evaluated with it. No text in the evaluation sets is longer, so it changes no
 * reported figure.
 */
export const VADER_MAX_CHARS = 300;

/** VADER scores of `text` (first {@link VADER_MAX_CHARS} characters). */
export function vaderScores(text: string): VaderScores {
  return vaderPolarity(text.length > VADER_MAX_CHARS ? text.slice(0, VADER_MAX_CHARS) : text);
}

/** VADER's published thresholds: compound >= 0.05 positive, <= -0.05 negative, else neutral. */
export function vaderLabel(compound: number): SentimentLabel {
  if (compound >= 0.05) return "positive";
  if (compound <= -0.05) return "negative";
  return "neutral";
}
