/**
 * A query of one or two words is weighed towards the keyword side (HYBRID_ALPHA_SHORT): it is
 * mostly a name, which the small encoder places poorly. Checked on the word count, and through
 * SearchCore and LeadsCore on a real LanceDB index, by the alpha each call hands the index.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { alphaFor, wordCount } from "../../src/core/hybrid-alpha.js";
import { LeadsCore } from "../../src/core/leads.js";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { HybridQuery } from "../../src/index/search-index.js";
import { DIMS, embed, MODEL, makePost } from "../index/synthetic.js";

const ALPHAS = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };

describe("alphaFor", () => {
  it("counts words that hold a letter or a digit", () => {
    assert.equal(wordCount("mailchimp"), 1);
    assert.equal(wordCount("  google   analytics "), 2);
    assert.equal(wordCount("stripe & braintree"), 2);
    assert.equal(wordCount("the nexus 7"), 3);
    assert.equal(wordCount(""), 0);
  });

  it("weighs one or two words with the short-query alpha, longer queries with HYBRID_ALPHA", () => {
    assert.equal(alphaFor("mailchimp", ALPHAS), 0.3);
    assert.equal(alphaFor("photoshop alternatives", ALPHAS), 0.3);
    assert.equal(alphaFor("how do I price a SaaS product", ALPHAS), 0.5);
  });

  it("is set by HYBRID_ALPHA_SHORT, 0.3 by default, within 0..1", () => {
    assert.equal(loadConfig({}).shortQueryAlpha, 0.3);
    assert.equal(loadConfig({ HYBRID_ALPHA_SHORT: "0.1" }).shortQueryAlpha, 0.1);
    assert.throws(() => loadConfig({ HYBRID_ALPHA_SHORT: "1.5" }), /HYBRID_ALPHA_SHORT/);
  });
});

describe("the alpha each call hands the index", () => {
  let dir: string;
  let index: LanceDbIndex;
  const seen: number[] = [];
  const embedder: Embedder = {
    model: MODEL,
    dimensions: DIMS,
    embed: async (texts) => texts.map((t) => embed(t)),
    close: async () => {},
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-hybrid-alpha-"));
    index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir) });
    await index.open(MODEL, DIMS);
    await index.upsert([
      makePost({
        nativeId: "1",
        title: "Is Mailchimp worth it for a small list?",
        content: "Looking for an email marketing tool for our bakery.",
        leadType: "solution_request",
        leadScore: 80,
      }),
      makePost({
        nativeId: "2",
        title: "Pricing a SaaS product",
        content: "How do you price a SaaS product for small teams?",
        leadType: "advice_request",
        leadScore: 60,
      }),
    ]);
    // The real index answers; the wrapper only notes the alpha of each hybrid query.
    const hybrid = index.hybrid.bind(index);
    index.hybrid = (q: HybridQuery, signal?: AbortSignal) => {
      seen.push(q.alpha);
      return hybrid(q, signal);
    };
  });
  after(async () => {
    await index?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("SemanticSearch: an opinion question's one-word subject is short; a sentence is not", async () => {
    const core = new SearchCore({
      index,
      embedder,
      summarizer: createExtractiveSummarizer(),
      ...ALPHAS,
      pageTokens: new PageTokens(randomBytes(32)),
    });
    const signal = new AbortController().signal;
    seen.length = 0;
    const short = await core.semantic(
      { query: "what do people think of Mailchimp", limit: 5, subforums: [], pageToken: "" },
      signal,
    );
    await core.semantic({ query: "how do you price a SaaS product", limit: 5, subforums: [], pageToken: "" }, signal);
    assert.deepEqual(seen, [0.3, 0.5]);
    assert.equal(short.hits[0]?.post.id, "test:1");
  });

  it("FindLeads weighs its description the same way", async () => {
    const core = new LeadsCore({ index, embedder, ...ALPHAS });
    const signal = new AbortController().signal;
    seen.length = 0;
    await core.find({ query: "Mailchimp", limit: 5, minScore: 0 }, signal);
    await core.find({ query: "email marketing tool for a bakery", limit: 5, minScore: 0 }, signal);
    assert.deepEqual(seen, [0.3, 0.5]);
  });
});
