/**
 * An LRU cache in front of an embedder, for query embeddings: the same searches recur, and a
 * cache hit saves a model call (several ms for USE-lite, a network round trip for a remote
 * endpoint). Bounded by entry count. Cached vectors are shared: callers must not mutate them.
 */
import type { Embedder } from "./embedder.js";

/** An embedder with an LRU cache; `hits`/`misses` are for metrics and tests. */
export interface CachedEmbedder extends Embedder {
  readonly hits: number;
  readonly misses: number;
  readonly size: number;
}

/** Wraps `inner` with an LRU cache of at most `size` texts (size >= 1). */
export function cachedEmbedder(inner: Embedder, size: number): CachedEmbedder {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`cache size must be a positive integer, got ${size}`);
  // Map iteration order is insertion order: re-inserting on a hit makes the first key the LRU.
  const cache = new Map<string, Float32Array>();
  let hits = 0;
  let misses = 0;
  const remember = (text: string, vector: Float32Array): void => {
    cache.delete(text);
    cache.set(text, vector);
    while (cache.size > size) cache.delete(cache.keys().next().value as string);
  };
  return {
    get model() {
      return inner.model;
    },
    get dimensions() {
      return inner.dimensions;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    get size() {
      return cache.size;
    },
    async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
      const out = new Array<Float32Array>(texts.length);
      const missing: string[] = [];
      texts.forEach((text, i) => {
        const hit = cache.get(text);
        if (hit !== undefined) {
          hits += 1;
          remember(text, hit);
          out[i] = hit;
        } else if (!missing.includes(text)) {
          missing.push(text);
        }
      });
      if (missing.length > 0) {
        misses += missing.length;
        const vectors = await inner.embed(missing, signal);
        const fresh = new Map(missing.map((text, i) => [text, vectors[i]!]));
        for (const [text, vector] of fresh) remember(text, vector);
        texts.forEach((text, i) => {
          out[i] ??= fresh.get(text)!;
        });
      }
      return out;
    },
    close: () => inner.close(),
  };
}
