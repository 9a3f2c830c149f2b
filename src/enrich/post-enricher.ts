/**
 * Ingest-time enrichment of a batch of posts: sentiment (learned model over the post's embedding
 * and VADER) and the lead fields (the lead model over the rules' reading). The pipeline passes the vectors it
 * already computed for the index, so enrichment never embeds twice; it costs well under a
 * millisecond per post (see docs/EVALUATION.md). `topicId` stays "" until the topic model fills it.
 *
 * The object satisfies the ingest pipeline's `Enricher` structurally (enrich(posts) with an
 * optional second argument); it does not import it, so enrich/ keeps no arrow back up to ingest/.
 */

import type { EnrichedPost, Post } from "../model/post.js";
import { postEmbeddingText } from "./embed-text.js";
import type { Embedder } from "./embedder.js";
import { createLeadClassifier, type LeadClassifier } from "./leads/classifier.js";
import { createSentimentClassifier, type SentimentClassifier } from "./sentiment/classifier.js";

/** Enriches posts; vectors, when given, are the posts' embeddings in the same order. */
export interface PostEnricher {
  enrich(posts: readonly Post[], vectors?: readonly Float32Array[], signal?: AbortSignal): Promise<EnrichedPost[]>;
}

/** Options of {@link createPostEnricher}. */
export interface PostEnricherOptions {
  /** Embeds posts when `enrich` is called without vectors; must be the model sentiment was trained on. */
  embedder?: Embedder;
  /**
   * Text the embedder is given for a post, when it embeds. Default: the text ingest embeds
   * (postEmbeddingText), so a post gets the label it gets at ingest with the default embedder.
   */
  embeddingText?: (post: Post) => string;
  sentiment?: SentimentClassifier;
  leads?: LeadClassifier;
  /**
   * Embeds the posts for the lead classifier when it reads another encoder's vectors than
   * sentiment does; without it both read the same vectors.
   */
  leadEmbedder?: Embedder;
}

/** The text sentiment reads: the whole title and body (VADER cuts very long ones itself). */
export function sentimentText(post: Pick<Post, "title" | "content">): string {
  return post.content === "" ? post.title : `${post.title}\n${post.content}`;
}

/** Builds the enricher from the committed sentiment and lead models. */
export function createPostEnricher(options: PostEnricherOptions = {}): PostEnricher {
  const sentiment =
    options.sentiment ?? createSentimentClassifier(options.embedder ? { embedder: options.embedder } : {});
  const leads = options.leads ?? createLeadClassifier();
  const embeddingText = options.embeddingText ?? postEmbeddingText;
  return {
    async enrich(posts, vectors, signal) {
      let vecs = vectors;
      if (!vecs) {
        if (!options.embedder)
          throw new Error("enrich() needs the posts' vectors or an embedder (createPostEnricher({ embedder }))");
        vecs = await options.embedder.embed(posts.map(embeddingText), signal);
      }
      if (vecs.length !== posts.length) throw new Error(`got ${vecs.length} vectors for ${posts.length} posts`);
      const leadVecs = options.leadEmbedder ? await options.leadEmbedder.embed(posts.map(embeddingText), signal) : vecs;
      return posts.map((post, i): EnrichedPost => {
        const s = sentiment.classifyOne(sentimentText(post), vecs[i]!);
        const { leadType, leadScore, painPoint, opportunity, industry, targetProduct } = leads.classify(
          post,
          leadVecs[i]!,
          s,
        );
        return {
          ...post,
          sentiment: s.label,
          sentimentScore: s.score,
          leadType,
          leadScore,
          painPoint,
          opportunity,
          industry,
          targetProduct,
          topicId: "",
        };
      });
    },
  };
}
