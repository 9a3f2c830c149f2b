/**
 * The embedding contract. Implementations: the Universal Sentence Encoder lite that ships in
 * npm (run in worker threads) and an OpenAI-compatible /v1/embeddings client.
 */

/** Turns texts into unit-length vectors of a fixed dimension. */
export interface Embedder {
  /** Stable model id recorded in the index, e.g. "use-lite-512". */
  readonly model: string;
  readonly dimensions: number;
  /** One vector per text, same order, each L2-normalised. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}
