/**
 * A query's embedding handed to the index unresolved, so the index can start what does not need
 * it (the keyword side of a hybrid search, the vector plan) while the query is embedded.
 */
import type { Embedder } from "../enrich/embedder.js";

/**
 * The embedding of `query` as a promise the index awaits. The no-op catch only keeps a failure
 * the index never reached (it may reject the request first) from being reported as unhandled;
 * the index's await is what hands the error to the caller.
 */
export function queryVector(embedder: Embedder, query: string, signal: AbortSignal): Promise<Float32Array> {
  const vector = embedder.embed([query], signal).then(([v]) => v!);
  vector.catch(() => {});
  return vector;
}
