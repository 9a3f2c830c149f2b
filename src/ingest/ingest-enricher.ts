/**
 * The enricher `threadsight ingest` uses: sentiment and lead fields from the insights
 * classifiers, and the topic of each post from the current topic model ("" until one is
 * built with `threadsight topics rebuild`). Each bundled encoder has its own sentiment model, so
 * sentiment reads the pipeline's vectors; the lead model reads the vectors it was trained on, and
 * where those are not the index's (or the encoder has no sentiment model, as with EMBEDDINGS_URL)
 * ingest runs its own USE-lite embedder for them, which doubles the embedding cost of ingest but
 * keeps the labels those of the evaluated models. No model is ever given another encoder's vectors.
 */

import type { Embedder } from "../enrich/embedder.js";
import { loadLeadModel } from "../enrich/leads/lead-model.js";
import type { PostEnricher } from "../enrich/post-enricher.js";
import { createPostEnricher } from "../enrich/post-enricher.js";
import { createSentimentClassifier } from "../enrich/sentiment/classifier.js";
import { hasSentimentModel, loadSentimentModel } from "../enrich/sentiment/model-file.js";
import { startUseEmbedder, USE_MODEL_ID } from "../enrich/use-embedder.js";
import type { EnrichedPost, Post } from "../model/post.js";
import { createTopicAssigner } from "../topics/assigner.js";
import type { Enricher } from "./enricher.js";

/** The ingest enricher plus what it must release. */
export interface IngestEnricher extends Enricher {
  close(): Promise<void>;
}

/**
 * Builds the enricher for posts whose vectors come from `embedder` (only its model and
 * dimensions are read: `threadsight reenrich` passes those of the stored vectors without
 * starting an embedder), with topics from `dataDir`. With `topics: false` the topic id is left
 * "" (a reembed keeps each post's stored one: the topic model is in the old vectors' space).
 */
export async function createIngestEnricher(
  dataDir: string,
  embedder: Pick<Embedder, "model" | "dimensions">,
  options: { topics?: boolean } = {},
): Promise<IngestEnricher> {
  const index = embedder.model;
  const leadReads = loadLeadModel().embeddingModel;
  const sentimentReads = hasSentimentModel(index) ? index : leadReads;
  const sentiment = loadSentimentModel(sentimentReads);
  if (sentimentReads === index && sentiment.dimensions !== embedder.dimensions)
    throw new Error(
      `the sentiment model for ${index} expects ${sentiment.dimensions}-d vectors, the embedder gives ${embedder.dimensions}-d`,
    );
  for (const [what, reads] of [
    ["sentiment", sentimentReads],
    ["lead", leadReads],
  ] as const) {
    if (reads !== index && reads !== USE_MODEL_ID)
      throw new Error(
        `the ${what} model reads ${reads} vectors: ingest can neither reuse the index's (${index}) nor compute them (its own embedder is USE-lite); retrain it for ${index}`,
      );
  }
  const topics = options.topics === false ? undefined : createTopicAssigner(dataDir);
  const reuse = sentimentReads === index;
  const own = reuse && leadReads === index ? undefined : await startUseEmbedder(1);
  const posts: PostEnricher = createPostEnricher({
    sentiment: createSentimentClassifier({ embeddingModel: sentimentReads }),
    ...(own === undefined ? {} : reuse ? { leadEmbedder: own } : { embedder: own }),
  });
  return {
    async enrich(batch: readonly Post[], vectors: readonly Float32Array[]): Promise<EnrichedPost[]> {
      const enriched = await posts.enrich(batch, reuse ? vectors : undefined);
      if (topics === undefined) return enriched;
      const topicIds = await topics.assign(vectors);
      return enriched.map((p, i) => ({ ...p, topicId: topicIds[i] ?? "" }));
    },
    async close() {
      await own?.close();
    },
  };
}
