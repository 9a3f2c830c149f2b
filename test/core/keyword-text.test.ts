/**
 * "vs" and "versus" are left out of a query's keyword side: they matched any title comparing
 * anything ("Singleton vs Static" first for "Stripe vs Braintree" on the corpora). Checked on the
 * words and through SearchCore on a real LanceDB index, keyword side only, where a post sharing
 * nothing with the query but "vs" must not come back at all.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { keywordText } from "../../src/core/keyword-text.js";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { DIMS, embed, MODEL, makePost } from "../index/synthetic.js";

describe("keywordText", () => {
  it("drops the comparison connectives and nothing else", () => {
    assert.equal(keywordText("Stripe vs Braintree"), "Stripe Braintree");
    assert.equal(keywordText("stripe vs. braintree for subscriptions"), "stripe braintree for subscriptions");
    assert.equal(keywordText("Asana VERSUS Trello"), "Asana Trello");
    assert.equal(keywordText("vsftpd versus proftpd"), "vsftpd proftpd", "only the whole word");
    assert.equal(keywordText("canvas vs"), "canvas");
    assert.equal(keywordText("vs"), "vs", "a query of nothing else is searched as written");
  });
});

describe("SearchCore keyword side", () => {
  let dir: string;
  let index: LanceDbIndex;
  const embedder: Embedder = {
    model: MODEL,
    dimensions: DIMS,
    embed: async (texts) => texts.map((t) => embed(t)),
    close: async () => {},
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-keyword-text-"));
    index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir) });
    await index.open(MODEL, DIMS);
    await index.upsert([
      makePost({
        nativeId: "1",
        title: "Singleton vs Static",
        content: "When should a class be a singleton rather than static methods?",
      }),
      makePost({ nativeId: "2", title: "Tabs vs Spaces", content: "Which do you use in your projects?" }),
      makePost({
        nativeId: "3",
        title: "Stripe or Braintree for a subscription business?",
        content: "We are choosing a payment processor for monthly plans.",
      }),
      makePost({ nativeId: "4", title: "Braintree fees went up", content: "Our invoice doubled this month." }),
    ]);
  });
  after(async () => {
    await index?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("returns only posts about the things compared", async () => {
    const core = new SearchCore({
      index,
      embedder,
      summarizer: createExtractiveSummarizer(),
      hybridAlpha: 0,
      shortQueryAlpha: 0,
      pageTokens: new PageTokens(randomBytes(32)),
    });
    const out = await core.semantic(
      { query: "Stripe vs Braintree", limit: 10, subforums: [], pageToken: "" },
      new AbortController().signal,
    );
    assert.deepEqual(out.hits.map((h) => h.post.id).sort(), ["test:3", "test:4"]);
  });
});
