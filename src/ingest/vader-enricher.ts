/**
 * The ingest enricher until the insights issue lands its classifiers: VADER sentiment on the
 * title and content (compound >= 0.05 positive, <= -0.05 negative, else neutral; score is the
 * compound, -1..1). Lead fields stay empty ("" / 0) and topicId "" — they mean "not assessed",
 * and the insights issue replaces this enricher with one that fills them.
 */
import type { EnrichedPost, Post } from "../model/post.js";
import { vaderLabel, vaderScores } from "../enrich/sentiment/vader.js";
import type { Enricher } from "./enricher.js";

/** Sentiment from VADER; no leads, no topic. */
export const vaderEnricher: Enricher = {
  async enrich(posts: readonly Post[]): Promise<EnrichedPost[]> {
    return posts.map((post) => {
      const { compound } = vaderScores(post.content === "" ? post.title : `${post.title}\n${post.content}`);
      return {
        ...post,
        sentiment: vaderLabel(compound),
        sentimentScore: compound,
        leadType: "",
        leadScore: 0,
        painPoint: "",
        opportunity: "",
        industry: "",
        targetProduct: "",
        topicId: "",
      };
    });
  },
};
