/**
 * The labelled leads as the product tagger learns from them: every post of leads.tsv labelled a
 * lead (those have a target_product), its sentences, and the sentence carrying its intent as the
 * rules alone pick it (no vector needed, so training reads no embedding). Shared by
 * scripts/train-product-tagger.ts, the lead-labels eval section and the re-train test.
 */

import { taggerSentence } from "../../src/enrich/leads/products/tagger-model.js";
import type { TaggerExample } from "../../src/enrich/leads/products/train-tagger.js";
import { createRuleLeadClassifier } from "../../src/enrich/leads/rule-classifier.js";
import { type Sentence, sentencesOf } from "../../src/enrich/leads/text.js";
import type { Post } from "../../src/model/post.js";
import { labelledPosts } from "./labelled-posts.js";
import { isLead, type LeadLabel, loadLeadLabels } from "./lead-labels.js";

/** One labelled lead with the sentences findTargetProduct reads. */
export interface TargetExample {
  label: LeadLabel;
  post: Post;
  sentences: Sentence[];
  /** The rules' focus sentence, when they found one. */
  focus: Sentence | undefined;
}

/** Every labelled lead of leads.tsv, in file order. */
export async function loadTargetExamples(): Promise<TargetExample[]> {
  const labels = loadLeadLabels().filter(isLead);
  const posts = await labelledPosts(labels.map((l) => ({ split: l.split, id: l.id, accepted: new Set<string>() })));
  const rules = createRuleLeadClassifier();
  return labels.map((label, i) => {
    const post = posts[i]!;
    const sentences = sentencesOf(post);
    const evidence = rules.classify(post).evidence;
    return { label, post, sentences, focus: sentences.find((s) => s.text === evidence) };
  });
}

/** The example as the tagger reads it: the focus sentence, then the title's, as findTargetProduct orders them. */
export function taggerExample(e: TargetExample): TaggerExample {
  const title = e.sentences.filter((s) => s.inTitle && s !== e.focus);
  const read = e.focus ? [e.focus, ...title] : title;
  return {
    sentences: read.map((s) => taggerSentence(s.text, s === e.focus ? "focus" : "title")),
    gold: e.label.targetProduct,
  };
}
