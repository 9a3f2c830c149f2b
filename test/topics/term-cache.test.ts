/**
 * The term cache must give exactly what counting afresh gives (per term, the posts using it):
 * same counts in the same order, a recount when a post's text changes, and a bounded size.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TermCache } from "../../src/core/trends/term-cache.js";
import { terms } from "../../src/topics/terms.js";

const POSTS = [
  { id: "a", text: "Rust compiler release: rust rust borrow checker" },
  { id: "b", text: "Python packaging and the compiler; python wheels" },
  { id: "c", text: "Borrow money for a startup? Startup loans explained" },
];

function fresh(texts: readonly string[]): [string, number][] {
  const m = new Map<string, number>();
  for (const t of texts) for (const w of new Set(terms(t))) m.set(w, (m.get(w) ?? 0) + 1);
  return [...m];
}

function cached(cache: TermCache, posts: readonly { id: string; text: string }[]): [string, number][] {
  const m = new Map<string, number>();
  for (const p of posts) cache.addTo(p.id, p.text, m);
  return [...m];
}

describe("TermCache", () => {
  it("counts each term once per post, in first-seen order, cold and warm", () => {
    const cache = new TermCache(10);
    // "rust" three times in one post, "compiler" in two posts.
    assert.equal(new Map(cached(cache, POSTS)).get("rust"), 1);
    assert.equal(new Map(cached(cache, POSTS)).get("compiler"), 2);
  });

  it("counts like counting afresh, in the same key order, cold and warm", () => {
    const cache = new TermCache(10);
    const want = fresh(POSTS.map((p) => p.text));
    assert.deepEqual(cached(cache, POSTS), want);
    assert.deepEqual(cached(cache, POSTS), want);
    assert.deepEqual(cached(cache, [...POSTS].reverse()), fresh([...POSTS].reverse().map((p) => p.text)));
  });

  it("recounts a post whose text changed", () => {
    const cache = new TermCache(10);
    cached(cache, POSTS);
    const edited = POSTS.map((p) => (p.id === "b" ? { id: "b", text: "Kotlin coroutines, kotlin flows" } : p));
    assert.deepEqual(cached(cache, edited), fresh(edited.map((p) => p.text)));
  });

  it("holds at most its capacity, dropping the least recently used", () => {
    const cache = new TermCache(2);
    cached(cache, POSTS);
    assert.equal(cache.size, 2);
    // "a" was evicted; counting it again still gives the right answer.
    assert.deepEqual(cached(cache, POSTS.slice(0, 1)), fresh([POSTS[0]!.text]));
    assert.equal(cache.size, 2);
  });
});
