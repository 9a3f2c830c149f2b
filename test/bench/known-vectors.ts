/**
 * An embedder that already knows its queries' vectors: what a call costs after the embedding
 * (as with the query cache, or an encoder fast enough not to count), for in-process splits.
 */
import type { Embedder } from "../../src/enrich/embedder.js";

/** Hands back `byText`'s vector for each text; a text it does not know is an error. */
export function knownVectors(model: string, dimensions: number, byText: ReadonlyMap<string, Float32Array>): Embedder {
  return {
    model,
    dimensions,
    embed: (texts) => {
      const missing = texts.find((t) => !byText.has(t));
      if (missing !== undefined) return Promise.reject(new Error(`no vector known for "${missing}"`));
      return Promise.resolve(texts.map((t) => byText.get(t)!));
    },
    close: () => Promise.resolve(),
  };
}
