/**
 * Orders other than relevance. A query ranks every post, so "newest first" needs a set to sort:
 * the request's most relevant matches (RULES.sortWindow of them, which is as deep as paging
 * reaches), sorted by the order's key with ties broken by post id, ascending, so the order is
 * total and pages of the same request never overlap or skip.
 */
import type { Hit } from "../index/search-index.js";
import type { SortOrder } from "./request-rules.js";

type Key = (h: Hit) => number;

/** Each order as a key sorted descending (oldest is newest negated). */
const KEYS: Readonly<Record<Exclude<SortOrder, "relevance">, Key>> = {
  newest: (h) => h.post.created,
  oldest: (h) => -h.post.created,
  top: (h) => h.post.upvotes,
  most_commented: (h) => h.post.comments,
};

/** `hits` sorted by `sort` (not "relevance"), ties by id ascending; a new array. */
export function sortWindow(hits: readonly Hit[], sort: Exclude<SortOrder, "relevance">): Hit[] {
  const key = KEYS[sort];
  return hits
    .map((h) => ({ h, k: key(h) }))
    .sort((a, b) => b.k - a.k || (a.h.post.id < b.h.post.id ? -1 : a.h.post.id > b.h.post.id ? 1 : 0))
    .map(({ h }) => h);
}
