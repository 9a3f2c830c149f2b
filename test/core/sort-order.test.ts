import assert from "node:assert/strict";
import { test } from "node:test";
import { sortWindow } from "../../src/core/sort-order.js";
import type { Hit } from "../../src/index/search-index.js";
import { makePost } from "../index/synthetic.js";

const hit = (nativeId: string, created: number, upvotes: number, comments: number, score: number): Hit => {
  const { vector: _v, ...post } = makePost({ nativeId, title: nativeId, created, upvotes, comments });
  return { post, score };
};

test("each order sorts by its key, ties by id ascending, whatever the relevance order", () => {
  const hits = [hit("c", 2, 5, 1, 0.9), hit("a", 3, 5, 7, 0.8), hit("b", 2, 9, 7, 0.7), hit("d", 1, 0, 0, 0.6)];
  const order = (sort: Parameters<typeof sortWindow>[1]) => sortWindow(hits, sort).map((h) => h.post.nativeId);
  assert.deepEqual(order("newest"), ["a", "b", "c", "d"]);
  assert.deepEqual(order("oldest"), ["d", "b", "c", "a"]);
  assert.deepEqual(order("top"), ["b", "a", "c", "d"]);
  assert.deepEqual(order("most_commented"), ["a", "b", "c", "d"]);
  assert.deepEqual(
    hits.map((h) => h.post.nativeId),
    ["c", "a", "b", "d"],
    "input left as it was",
  );
});
