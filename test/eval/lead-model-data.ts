/**
 * The labelled lead set as the lead model sees it: every judged post (drops left out) with its
 * split, gold class, USE-lite vector (through the embedding cache), sentiment, rule reading and
 * feature row. Shared by scripts/train-lead-model.ts and the `lead-model` eval section, so both
 * read the posts the same way ingest does.
 */
import { postEmbeddingText } from "../../src/enrich/embed-text.js";
import { leadFeatureRow } from "../../src/enrich/leads/lead-features.js";
import { LEAD_MODEL_CLASSES } from "../../src/enrich/leads/lead-model.js";
import { createRuleLeadClassifier, type RuleReading } from "../../src/enrich/leads/rule-classifier.js";
import { sentimentText } from "../../src/enrich/post-enricher.js";
import { createSentimentClassifier, type SentimentResult } from "../../src/enrich/sentiment/classifier.js";
import type { Post } from "../../src/model/post.js";
import { embedCached } from "./embedding-cache.js";
import { labelledPosts } from "./labelled-posts.js";
import { type LeadLabel, loadLeadLabels } from "./lead-labels.js";

/** One judged post of the lead set. */
export interface LeadExample {
  label: LeadLabel;
  post: Post;
  vector: Float32Array;
  sentiment: SentimentResult;
  reading: RuleReading;
  /** Index in LEAD_MODEL_CLASSES. */
  gold: number;
  features: Float64Array;
}

/** Every judged post of leads.tsv, in file order. */
export async function loadLeadExamples(): Promise<LeadExample[]> {
  const labels = loadLeadLabels().filter((l) => l.leadType !== "drop");
  const posts = await labelledPosts(labels.map((l) => ({ split: l.split, id: l.id, accepted: new Set<string>() })));
  const vectors = await embedCached("lead-model", posts.map(postEmbeddingText));
  const sentiment = createSentimentClassifier();
  const rules = createRuleLeadClassifier();
  return labels.map((label, i) => {
    const post = posts[i]!;
    const vector = vectors[i]!;
    const s = sentiment.classifyOne(sentimentText(post), vector);
    const reading = rules.read(post, vector, s);
    const gold = (LEAD_MODEL_CLASSES as readonly string[]).indexOf(label.leadType);
    if (gold < 0) throw new Error(`lead label ${label.id}: ${label.leadType} is not a model class`);
    return { label, post, vector, sentiment: s, reading, gold, features: leadFeatureRow(post, vector, reading, s) };
  });
}
