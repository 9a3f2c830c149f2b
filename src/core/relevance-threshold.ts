/**
 * The least cosine similarity between a query and a post for AggregatePosts to count the post,
 * per embedding model. Chosen on a labelled dev split and checked on a held-out one (the
 * `aggregate-threshold` section of `npm run eval`, docs/EVALUATION.md; docs/concepts/search.md
 * says how). Models without a measured value use the bundled default encoder's.
 */

/** Threshold by embedding model id. */
export const MIN_SIMILARITY: Readonly<Record<string, number>> = Object.freeze({
  "use-lite-512": 0.42,
  "all-minilm-l6-v2-384": 0.35,
});

/** The model the fallback value comes from. */
const DEFAULT_MODEL = "use-lite-512";

/** The threshold for vectors of `model`. */
export function minSimilarityFor(model: string): number {
  return MIN_SIMILARITY[model] ?? MIN_SIMILARITY[DEFAULT_MODEL]!;
}
