/**
 * Chooses the embedder from config: the OpenAI-compatible endpoint when EMBEDDINGS_URL is set,
 * otherwise the bundled Universal Sentence Encoder lite in EMBED_WORKERS threads. Either way the
 * returned embedder knows its dimension (the remote one after a probe request).
 */
import type { Config } from "../config.js";
import type { Embedder } from "./embedder.js";
import { connectOpenAiEmbedder } from "./openai-embedder.js";
import { startUseEmbedder } from "./use-embedder.js";

/** The config fields the factory reads. */
export type EmbedderConfig = Pick<Config, "embeddingsUrl" | "embeddingsModel" | "embeddingsApiKey" | "embedWorkers">;

/** Starts the configured embedder. Close it when done (it may own worker threads). */
export async function createEmbedder(config: EmbedderConfig, signal?: AbortSignal): Promise<Embedder> {
  if (config.embeddingsUrl !== undefined) {
    return connectOpenAiEmbedder({ url: config.embeddingsUrl, model: config.embeddingsModel, apiKey: config.embeddingsApiKey }, signal);
  }
  return startUseEmbedder(config.embedWorkers);
}
