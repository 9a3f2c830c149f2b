/**
 * Deterministic synthetic posts and vectors for the index tests, so they do not need the
 * embedding model: a post's vector is its words hashed (FNV-1a, signed) into 64 buckets and
 * normalised to unit length, so posts sharing words are near each other.
 */
import type { IndexedPost } from "../../src/model/post.js";

/** Dimensions of the synthetic vectors. */
export const DIMS = 64;
/** Model id the suites open indexes with. */
export const MODEL = "synthetic-bow-64";

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Unit vector of the hashed bag of words of `text`. */
export function embed(text: string, dims = DIMS): Float32Array {
  const v = new Float32Array(dims);
  for (const word of text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)) {
    const h = fnv1a(word);
    v[h % dims]! += h & 0x80000000 ? -1 : 1;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i]! /= norm;
  return v;
}

/** Cosine similarity of two vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** A post with defaults for everything not given; the vector is embed(title + content). */
export function makePost(fields: Partial<IndexedPost> & { nativeId: string; title: string }): IndexedPost {
  const content = fields.content ?? "";
  const base: IndexedPost = {
    id: `test:${fields.nativeId}`,
    source: "test",
    nativeId: fields.nativeId,
    title: fields.title,
    content,
    subforum: "general",
    author: "tester",
    upvotes: 1,
    comments: 0,
    created: Date.UTC(2024, 0, 1),
    url: `https://example.test/${fields.nativeId}`,
    sentiment: "neutral",
    sentimentScore: 0,
    leadType: "",
    leadScore: 0,
    painPoint: "",
    opportunity: "",
    industry: "",
    targetProduct: "",
    topicId: "",
    vector: embed(`${fields.title} ${content}`),
  };
  return { ...base, ...fields, vector: fields.vector ?? base.vector };
}

const WORDS = (
  "startup founder revenue customer churn pricing marketing launch product feature bug deploy server database " +
  "cloud invoice payroll hiring remote team design mobile android iphone laptop budget growth funnel email " +
  "newsletter analytics dashboard support ticket refund subscription trial onboarding workflow automation " +
  "spreadsheet crm sales lead demo contract legal tax accounting bank loan investor pitch seed equity"
).split(" ");

/** `n` pseudo-random posts (seeded), spread over 5 subforums and 2023. */
export function randomPosts(n: number, seed = 1, prefix = "r"): IndexedPost[] {
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(" ");
  return Array.from({ length: n }, (_, i) =>
    makePost({
      nativeId: `${prefix}${i}`,
      title: pick(6),
      content: pick(40),
      subforum: `sub${i % 5}`,
      created: Date.UTC(2023, 0, 1) + Math.floor(next() * 365 * 86_400_000),
      upvotes: Math.floor(next() * 500),
      leadType: i % 3 === 0 ? "buying_intent" : "",
      leadScore: i % 3 === 0 ? Math.floor(next() * 100) : 0,
    }),
  );
}
