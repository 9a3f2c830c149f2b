/**
 * The sentiment model's input: the post's sentence embedding followed by VADER's four scores.
 * Training and inference both build features here, so they cannot drift apart.
 */
import { vaderScores } from "./vader.js";

/** Names of the trailing lexicon features, in order. */
export const LEXICON_FEATURES = ["vader.compound", "vader.pos", "vader.neg", "vader.neu"] as const;

/** Feature vector for `text` with its embedding `vector`: [...vector, compound, pos, neg, neu]. */
export function sentimentFeatures(text: string, vector: Float32Array): Float64Array {
  const v = vaderScores(text);
  const out = new Float64Array(vector.length + LEXICON_FEATURES.length);
  out.set(vector);
  out[vector.length] = v.compound;
  out[vector.length + 1] = v.pos;
  out[vector.length + 2] = v.neg;
  out[vector.length + 3] = v.neu;
  return out;
}
