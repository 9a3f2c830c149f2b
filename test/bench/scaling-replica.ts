/**
 * Synthetic scale from real posts: the kept embedded index's posts (with their stored vectors)
 * repeated to a target size. Copy 0 of a post is the post itself; copy r > 0 gets a new id, a
 * few of its words dropped (a different subset per copy, so BM25 scores differ between copies)
 * and its vector jittered by small uniform noise, renormalised to the original length (cosine
 * to the original ~0.98), so vector ranking does not collapse onto ties. Nothing is embedded
 * again: embedding 1M texts would take hours on this machine. Deterministic per position.
 */
import * as lancedb from "@lancedb/lancedb";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { fromRow, POST_COLUMNS, POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import type { IndexedPost } from "../../src/model/post.js";
import { toVector } from "./stored-vectors.js";

/** Per-component noise half-width; 512 dims -> cosine to the original about 0.98. */
const JITTER = 0.012;
/** Copy r drops the words at positions p with (p + r) % DROP_EVERY === 0 (texts of >= DROP_EVERY words). */
const DROP_EVERY = 7;
const READ_CHUNK = 5000;

/**
 * Every post of the embedded index in `dataDir`, with its vector, in a fixed shuffled order.
 * Reads one pinned table version, so an ingest still writing there cannot shift rows between chunks.
 */
export async function readSourcePosts(dataDir: string): Promise<{ posts: IndexedPost[]; version: number }> {
  const db = await lancedb.connect(LanceDbIndex.dirFor(dataDir));
  const table = await db.openTable(POSTS_TABLE);
  try {
    const version = await table.version();
    await table.checkout(version);
    const total = await table.countRows();
    const seen = new Set<string>();
    const posts: IndexedPost[] = [];
    for (let offset = 0; offset < total; offset += READ_CHUNK) {
      const rows = await table
        .query()
        .select([...POST_COLUMNS, "vector"])
        .limit(READ_CHUNK)
        .offset(offset)
        .toArray();
      for (const r of rows as Record<string, unknown>[]) {
        const p = { ...fromRow(r), vector: toVector(r.vector) };
        if (seen.has(p.id)) continue;
        seen.add(p.id);
        posts.push(p);
      }
    }
    // A fixed shuffle, so that a size below the source count mixes all four corpora.
    const next = rng(0x5eed);
    for (let i = posts.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [posts[i], posts[j]] = [posts[j]!, posts[i]!];
    }
    return { posts, version };
  } finally {
    table.close();
    db.close();
  }
}

/** xorshift32 seeded from the position: the same copy gets the same noise on every run. */
function rng(seed: number): () => number {
  let s = Math.imul(seed + 1, 2654435761) >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function vary(text: string, copy: number): string {
  const words = text.split(" ");
  if (words.length < DROP_EVERY) return text;
  return words.filter((_, p) => (p + copy) % DROP_EVERY !== 0).join(" ");
}

function jitter(v: Float32Array, next: () => number): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  const out = new Float32Array(v.length);
  let outNorm = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]! + (2 * next() - 1) * JITTER;
    out[i] = x;
    outNorm += x * x;
  }
  const scale = Math.sqrt(norm / outNorm);
  for (let i = 0; i < out.length; i++) out[i]! *= scale;
  return out;
}

/** The post at `position` of the replicated corpus (position / sources = copy number). */
export function replicaAt(sources: readonly IndexedPost[], position: number): IndexedPost {
  const src = sources[position % sources.length]!;
  const copy = Math.floor(position / sources.length);
  if (copy === 0) return src;
  return {
    ...src,
    id: `${src.id}~${copy}`,
    nativeId: `${src.nativeId}~${copy}`,
    title: vary(src.title, copy),
    content: vary(src.content, copy),
    vector: jitter(src.vector, rng(position)),
  };
}

/** Positions [from, to) of the replicated corpus. */
export function replicaChunk(sources: readonly IndexedPost[], from: number, to: number): IndexedPost[] {
  const out: IndexedPost[] = [];
  for (let i = from; i < to; i++) out.push(replicaAt(sources, i));
  return out;
}
