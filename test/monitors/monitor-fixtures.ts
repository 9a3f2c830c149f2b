/**
 * Fixtures the monitor suites share: a forum post as the index stores it, with every field a
 * plain default, a stored monitor likewise, and an embedder that keyword monitors must never call.
 */
import assert from "node:assert/strict";
import type { Embedder } from "../../src/enrich/embedder.js";
import type { IndexedPost } from "../../src/model/post.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import type { StoredMonitor } from "../../src/monitors/monitor-spec.js";

/** Vector size of the fixtures' posts and of `noEmbedding`. */
export const FIXTURE_DIMS = 4;

/** Keyword monitors embed nothing; a call here would mean the percolator embedded per post. */
export const noEmbedding: Embedder = {
  model: "none",
  dimensions: FIXTURE_DIMS,
  embed: async () => assert.fail("keyword monitors must not embed"),
  close: async () => undefined,
};

/** A reddit post whose native id is `native`; `fields` replace the defaults. */
export function forumPost(native: string, fields: Partial<IndexedPost> = {}): IndexedPost {
  return {
    id: `reddit:${native}`,
    source: "reddit",
    nativeId: native,
    title: "",
    content: "body text",
    subforum: "SaaS",
    author: "jane",
    upvotes: 3,
    comments: 1,
    created: Date.UTC(2026, 0, 1),
    url: `https://example.com/${native}`,
    sentiment: "neutral",
    sentimentScore: 0,
    leadType: "",
    leadScore: 0,
    painPoint: "",
    opportunity: "",
    industry: "",
    targetProduct: "",
    topicId: "",
    vector: new Float32Array(FIXTURE_DIMS),
    ...fields,
  };
}

/** An active search monitor of account "a" whose id is `id`; `fields` replace the defaults. */
export function storedMonitor(id: string, fields: Partial<StoredMonitor> = {}): StoredMonitor {
  return {
    id,
    accountId: "a",
    name: id,
    kind: "search",
    query: "",
    minRelevance: 0.5,
    minScore: 0,
    filter: emptyFilter(),
    channels: [],
    paused: false,
    pausedReason: "",
    secret: "s",
    previousSecret: "",
    previousSecretUntil: 0,
    created: 0,
    updated: 0,
    ...fields,
  };
}
