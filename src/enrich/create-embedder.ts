/**
 * Chooses the embedder from config: the OpenAI-compatible endpoint when EMBEDDINGS_URL is set,
 * otherwise the bundled encoder EMBEDDINGS_MODEL names (USE-lite or all-MiniLM-L6-v2) in
 * EMBED_WORKERS threads. Either way the
 * returned embedder knows its dimension (the remote one after a probe request).
 */
import type { Config } from "../config.js";
import type { Embedder } from "./embedder.js";
import { startMiniLmEmbedder } from "./minilm/minilm-embedder.js";
import { connectOpenAiEmbedder } from "./openai-embedder.js";
import { startUseEmbedder } from "./use-embedder.js";

/** The config fields the factory reads. */
export type EmbedderConfig = Pick<
  Config,
  "embeddingsUrl" | "embeddingsModel" | "embeddingsApiKey" | "embedWorkers" | "localEncoder" | "embeddingsModelDir"
>;

/** Starts the configured embedder. Close it when done (it may own worker threads). */
export async function createEmbedder(config: EmbedderConfig, signal?: AbortSignal): Promise<Embedder> {
  if (config.embeddingsUrl !== undefined) {
    return connectOpenAiEmbedder(
      { url: config.embeddingsUrl, model: config.embeddingsModel, apiKey: config.embeddingsApiKey },
      signal,
    );
  }
  if (config.localEncoder === "all-minilm-l6-v2")
    return startMiniLmEmbedder(config.embedWorkers, config.embeddingsModelDir);
  return startUseEmbedder(config.embedWorkers);
}
