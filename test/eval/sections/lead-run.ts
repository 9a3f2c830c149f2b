/**
 * Runs labelled texts through enrichment the way ingest does: each text becomes a post (text as
 * body), is embedded (cached), gets its sentiment, then its lead fields with that sentiment.
 */
import {
  createLeadClassifier,
  type LeadClassifierOptions,
  type LeadDecision,
} from "../../../src/enrich/leads/classifier.js";
import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import { textPost } from "../corpus-posts.js";
import { embedCached } from "../embedding-cache.js";

/**
 * Lead decisions for `texts`, in order; `cacheKey` names the embedding cache's progress lines.
 * `withVector: false` keeps the vector from the lead classifier (sentiment still gets it), to
 * show what the rules do without the suggestion head.
 */
export async function leadDecisions(
  cacheKey: string,
  texts: readonly string[],
  options: LeadClassifierOptions = {},
  withVector = true,
): Promise<LeadDecision[]> {
  const vectors = await embedCached(cacheKey, texts);
  const sentiment = createSentimentClassifier();
  const leads = createLeadClassifier(options);
  return texts.map((text, i) => {
    const s = sentiment.classifyOne(text, vectors[i]!);
    return leads.classify(textPost(text, String(i)), withVector ? vectors[i] : undefined, s);
  });
}
