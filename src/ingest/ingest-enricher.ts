/**
 * The enricher `threadsight ingest` uses: sentiment and lead fields from the insights
 * classifiers, and the topic of each post from the current topic model ("" until one is
 * built with `threadsight topics rebuild`). The sentiment and lead models were trained on USE-lite
 * vectors, so with the default embedder it reuses the pipeline's vectors; with another embedder
 * (EMBEDDINGS_URL, or EMBEDDINGS_MODEL=all-minilm-l6-v2) it runs its own USE-lite embedder for
 * both, which doubles the embedding cost of ingest but keeps the labels those of the evaluated
 * models. Neither model is ever given vectors of another width: both refuse them.
 */

import type { Embedder } from "../enrich/embedder.js";
import { loadLeadModel } from "../enrich/leads/lead-model.js";
import type { PostEnricher } from "../enrich/post-enricher.js";
import { createPostEnricher } from "../enrich/post-enricher.js";
import { loadSentimentModel } from "../enrich/sentiment/model-file.js";
import { startUseEmbedder } from "../enrich/use-embedder.js";
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
 * starting an embedder), with topics from `dataDir`.
 */
export async function createIngestEnricher(
  dataDir: string,
  embedder: Pick<Embedder, "model" | "dimensions">,
): Promise<IngestEnricher> {
  const model = loadSentimentModel();
  const leadModel = loadLeadModel();
  if (leadModel.embeddingModel !== model.embeddingModel || leadModel.dimensions !== model.dimensions)
    throw new Error(
      `the lead model expects ${leadModel.embeddingModel} (${leadModel.dimensions}-d) vectors and the sentiment model ${model.embeddingModel} (${model.dimensions}-d): retrain one so both read the same vectors`,
    );
  const topics = createTopicAssigner(dataDir);
  const reuse = embedder.model === model.embeddingModel && embedder.dimensions === model.dimensions;
  const own = reuse ? undefined : await startUseEmbedder(1);
  const posts: PostEnricher = createPostEnricher(own !== undefined ? { embedder: own } : {});
  return {
    async enrich(batch: readonly Post[], vectors: readonly Float32Array[]): Promise<EnrichedPost[]> {
      const enriched = await posts.enrich(batch, reuse ? vectors : undefined);
      const topicIds = await topics.assign(vectors);
      return enriched.map((p, i) => ({ ...p, topicId: topicIds[i] ?? "" }));
    },
    async close() {
      await own?.close();
    },
  };
}
