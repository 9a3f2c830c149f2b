/**
 * The hybrid weight of the vector side for one query. A query of one or two words is mostly a
 * name ("mailchimp", "google analytics", what an opinion question is about once its frame is
 * gone: query-subject.ts), which a sentence encoder as small as USE-lite places poorly: for
 * "mailchimp" the vector side put one-word titles as short as the query ("RobustIRC",
 * "Misfortune") in the top 8, while the keyword side finds the name. Longer queries are
 * sentences, where the vector side earns its weight. Measured in docs/EVALUATION.md
 * ("Retrieval": opinion subjects and the judged questions' subject lines).
 */

/** Queries of at most this many words are weighed with the short-query alpha. */
export const SHORT_QUERY_WORDS = 2;

/** The two weights a deployment sets (HYBRID_ALPHA, HYBRID_ALPHA_SHORT). */
export interface HybridAlphas {
  hybridAlpha: number;
  shortQueryAlpha: number;
}

/** Words of `text`: runs between spaces holding a letter or a digit ("&" or "-" alone is none). */
export function wordCount(text: string): number {
  let n = 0;
  for (const w of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(w)) n++;
  return n;
}

/** The alpha for the keyword text a query sends (keyword-text.ts). */
export function alphaFor(keywordText: string, alphas: HybridAlphas): number {
  return wordCount(keywordText) <= SHORT_QUERY_WORDS ? alphas.shortQueryAlpha : alphas.hybridAlpha;
}
