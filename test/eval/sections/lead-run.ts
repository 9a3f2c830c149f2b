/**
 * Runs labelled texts through enrichment the way ingest does: each text becomes a post (text as
 * body), is embedded (cached), gets its sentiment, then its lead fields with that sentiment, from
 * the ingest classifier (the lead model) or from the rule classifier it reads as features.
 */
import { createLeadClassifier, type LeadDecision } from "../../../src/enrich/leads/classifier.js";
import { compileLabelModel } from "../../../src/enrich/leads/label-model.js";
import { LEAD_MODEL_CLASSES, type LeadModelClass } from "../../../src/enrich/leads/lead-classes.js";
import { lfVotes } from "../../../src/enrich/leads/lf-votes.js";
import { createRuleLeadClassifier, type LeadClassifierOptions } from "../../../src/enrich/leads/rule-classifier.js";
import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import { textPost } from "../corpus-posts.js";
import { embedCached } from "../embedding-cache.js";

/** Which classifier {@link leadDecisions} runs. */
export interface LeadRun {
  /** "rules": the rule classifier alone (its sweeps, and the baseline); default: the ingest classifier. */
  classifier?: "ingest" | "rules";
  /** Options of the rule classifier (the ingest classifier's features keep the defaults it was trained on). */
  rules?: LeadClassifierOptions;
  /** false keeps the vector from the rule classifier (sentiment still gets it), to show the rules without heads. */
  withVector?: boolean;
}

/** Lead decisions for `texts`, in order; `cacheKey` names the embedding cache's progress lines. */
export async function leadDecisions(
  cacheKey: string,
  texts: readonly string[],
  run: LeadRun = {},
): Promise<LeadDecision[]> {
  const vectors = await embedCached(cacheKey, texts);
  const sentiment = createSentimentClassifier();
  const leads = run.classifier === "rules" ? createRuleLeadClassifier(run.rules) : createLeadClassifier();
  const withVector = run.withVector ?? true;
  return texts.map((text, i) => {
    const s = sentiment.classifyOne(text, vectors[i]!);
    return leads.classify(textPost(text, String(i)), withVector ? vectors[i] : undefined, s);
  });
}

/** The label model's most likely class for each text (read as a post with the text as body): the votes alone, no vector. */
export function labelModelClasses(texts: readonly string[]): LeadModelClass[] {
  const model = compileLabelModel();
  return texts.map((text, i) => {
    const q = model.posterior(lfVotes(textPost(text, String(i))));
    return LEAD_MODEL_CLASSES[q.indexOf(Math.max(...q))]!;
  });
}
