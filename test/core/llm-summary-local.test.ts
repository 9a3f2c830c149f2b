/**
 * The LLM ai_summary end to end against a real local model: SmolLM2-135M-Instruct served by
 * node-llama-cpp over the OpenAI-compatible protocol (test/harness/llama-server.ts), reached by
 * SemanticSearch through SearchCore on a real LanceDB index. The model's text is real, so the test
 * does not know it in advance: each summary must be either the model's answer with every citation
 * naming a post it was shown, or (the fallback taken, and said so) the themed summary, checked
 * figure by figure. Bounded: two queries, short answers.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { createLlmSummarizer } from "../../src/core/summary/llm.js";
import { MATCH_FLOOR } from "../../src/core/summary/match-floor.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { missingBackend } from "../harness/backend-policy.js";
import { hasSmolLm2, type LlamaServer, startLlamaServer } from "../harness/llama-server.js";
import { DIMS, embed, MODEL, makePost } from "../index/synthetic.js";
import { checkThemedSummary } from "./summary-check.js";

const skip = hasSmolLm2() ? false : missingBackend("smollm2", "run scripts/install-smollm2.sh");

const POSTS = [
  [
    "Stripe fees for small shops",
    "Stripe charges a percentage fee on every card payment. The fees add up for small shops.",
  ],
  ["Are Stripe fees negotiable?", "At our volume the card payment fees matter; can the percentage fee be negotiated?"],
  ["Frozen PayPal account", "PayPal froze my account after one large payment. Support said to wait for a review."],
  ["PayPal held my payment for 21 days", "My PayPal account is frozen and the payment held with no reason given."],
  ["Invoice reminders that work", "Automatic invoice reminders got our clients paying on time, payment within a week."],
  ["Tomatoes in June", "Tomatoes grow well in June if you water them every morning."],
];

describe("LLM ai_summary with a real local model", { skip }, () => {
  let dir: string;
  let index: LanceDbIndex;
  let llm: LlamaServer;
  const embedder: Embedder = {
    model: MODEL,
    dimensions: DIMS,
    embed: async (texts) => texts.map((t) => embed(t)),
    close: async () => {},
  };

  before(async () => {
    llm = await startLlamaServer();
    dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-llm-local-"));
    index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir) });
    await index.open(MODEL, DIMS);
    await index.upsert(
      POSTS.map(([title, content], i) =>
        makePost({ nativeId: String(i + 1), title: title!, content: content!, created: Date.UTC(2015, i, 3) }),
      ),
    );
  });
  after(async () => {
    await index?.close();
    await llm?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const query of ["problems with stripe fees and paypal", "paypal account frozen payment"]) {
    it(`summarises "${query}" with valid citations or falls back`, async () => {
      const fallbacks: string[] = [];
      const core = new SearchCore({
        index,
        embedder,
        summarizer: createLlmSummarizer({
          baseUrl: llm.url,
          model: "smollm2-135m-instruct",
          apiKey: undefined,
          timeoutMs: 120_000,
          maxTokens: 80,
          onFallback: (r) => fallbacks.push(r),
        }),
        hybridAlpha: 0.5,
        shortQueryAlpha: 0.5,
        pageTokens: new PageTokens(randomBytes(32)),
      });
      const asked = llm.answers.length;
      const out = await core.semantic({ query, limit: 5, subforums: [], pageToken: "" }, new AbortController().signal);
      assert.equal(llm.answers.length, asked + 1, "the model was asked once and answered");
      const answer = llm.answers.at(-1)!;
      assert.ok(answer.trim().length > 0, "the model generated text");
      const shown = out.hits.flatMap((h, i) => (h.score >= MATCH_FLOOR ? [i + 1] : []));
      if (fallbacks.length === 0) {
        assert.equal(out.summary, answer.replace(/\s+/g, " ").trim(), "the model's own answer is served");
        const cited = [...out.summary.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
        assert.ok(cited.length > 0 && cited.every((n) => shown.includes(n)), out.summary);
      } else {
        assert.deepEqual(fallbacks, ["rejected answer"], `refused: ${answer}`);
        const results = out.hits.map((h) => ({
          title: h.post.title,
          content: h.post.content,
          subforum: h.post.subforum,
          relevance: h.score,
          created: h.post.created,
          sentiment: h.post.sentiment,
        }));
        const all = await index.hybrid({ text: query, vector: embed(query), alpha: 0.5, limit: 50, offset: 0 });
        checkThemedSummary(out.summary, results, {
          matched: all.filter((h) => h.score >= MATCH_FLOOR).length,
          floor: MATCH_FLOOR,
        });
      }
      if (process.env.SHOW_SUMMARY) console.log(JSON.stringify({ answer, summary: out.summary, fallbacks }));
    });
  }
});
