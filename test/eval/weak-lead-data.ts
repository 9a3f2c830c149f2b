/**
 * Weakly labelled posts for the lead model: corpus posts outside the labelled lead set, each given
 * the label model's most likely class where it is confident, drawn per class with a fixed seed
 * and read the way ingest reads them (embedding through the cache, sentiment, rule reading,
 * feature row). scripts/train-lead-model.ts tries adding them to the train split.
 */
import { postEmbeddingText } from "../../src/enrich/embed-text.js";
import { compileLabelModel } from "../../src/enrich/leads/label-model.js";
import { LEAD_MODEL_CLASSES } from "../../src/enrich/leads/lead-classes.js";
import { leadFeatureRow } from "../../src/enrich/leads/lead-features.js";
import { lfVotes } from "../../src/enrich/leads/lf-votes.js";
import { createRuleLeadClassifier } from "../../src/enrich/leads/rule-classifier.js";
import { sentimentText } from "../../src/enrich/post-enricher.js";
import { createSentimentClassifier } from "../../src/enrich/sentiment/classifier.js";
import { readerFor } from "../../src/ingest/formats.js";
import { openInput } from "../../src/ingest/open-input.js";
import type { Post } from "../../src/model/post.js";
import { seededRandom } from "../../src/topics/random.js";
import { embedCached } from "./embedding-cache.js";
import { LABELLED_CORPORA } from "./labelled-posts.js";
import { loadLeadLabels } from "./lead-labels.js";
import { dataPath } from "./shared-data.js";

/** A weakly labelled post: its feature row and the label model's class. */
export interface WeakExample {
  features: Float64Array;
  gold: number;
}

/** Up to `perClass` posts of each class whose label-model probability reaches `confidence`. */
export async function loadWeakExamples(perClass: number, confidence: number, seed = 5): Promise<WeakExample[]> {
  const labelled = new Set(loadLeadLabels().map((l) => l.id));
  const model = compileLabelModel();
  const byClass: Post[][] = LEAD_MODEL_CLASSES.map(() => []);
  for (const [file, format] of LABELLED_CORPORA) {
    const input = await openInput(dataPath(file));
    for await (const item of readerFor(format)(input.bytes)) {
      if (!("post" in item) || labelled.has(item.post.id)) continue;
      const q = model.posterior(lfVotes(item.post));
      const c = q.indexOf(Math.max(...q));
      if (q[c]! >= confidence) byClass[c]!.push(item.post);
    }
  }
  const random = seededRandom(seed);
  const chosen = byClass.flatMap((posts, c) => {
    for (let i = posts.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [posts[i], posts[j]] = [posts[j]!, posts[i]!];
    }
    return posts.slice(0, perClass).map((post) => ({ post, c }));
  });
  const vectors = await embedCached(
    "weak-leads",
    chosen.map((x) => postEmbeddingText(x.post)),
  );
  const sentiment = createSentimentClassifier();
  const rules = createRuleLeadClassifier();
  return chosen.map(({ post, c }, i) => {
    const vector = vectors[i]!;
    const s = sentiment.classifyOne(sentimentText(post), vector);
    return { features: leadFeatureRow(post, vector, rules.read(post, vector, s), s), gold: c };
  });
}
