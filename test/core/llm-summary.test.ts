import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { acceptSummary, createLlmSummarizer } from "../../src/core/summary/llm.js";
import { MATCH_FLOOR } from "../../src/core/summary/match-floor.js";
import { themedSummary } from "../../src/core/summary/themed-summary.js";
import type { FakeChatServer } from "../fakes/openai-server.js";
import { startFakeChatServer } from "../fakes/openai-server.js";

const results = [
  {
    title: "Per-seat pricing hurts growth",
    subforum: "SaaS",
    content: "Pricing per seat punishes teams that grow, so we are moving to usage-based pricing for our product.",
  },
  {
    title: "Value-based pricing doubled revenue",
    subforum: "startups",
    content:
      "We moved from cost-plus to value-based pricing and revenue per customer doubled after customer interviews.",
  },
];

describe("LLM summary over an OpenAI-compatible server", () => {
  let fake: FakeChatServer;
  const fallbacks: string[] = [];
  before(async () => {
    fake = await startFakeChatServer();
  });
  after(async () => fake.close());
  const summarizer = () =>
    createLlmSummarizer({
      baseUrl: fake.url,
      model: "test-model",
      apiKey: "sk-test",
      timeoutMs: 1500,
      onFallback: (r) => fallbacks.push(r),
    });

  test("uses the model's answer and sends the protocol's request", async () => {
    fake.behave({
      kind: "complete",
      content: "Founders move away from per-seat pricing [1]. Value-based pricing raised revenue [2].",
    });
    const s = await summarizer().summarize("how to price SaaS", results);
    assert.equal(s, "Founders move away from per-seat pricing [1]. Value-based pricing raised revenue [2].");
    const req = fake.requests.at(-1)!;
    assert.equal(req.headers.authorization, "Bearer sk-test");
    assert.equal(req.body.model, "test-model");
    assert.equal(req.body.messages[0].role, "system");
    assert.match(req.body.messages[1].content, /\[1\] \(SaaS\) Per-seat pricing hurts growth/);
    assert.match(
      req.body.messages[1].content,
      /^Question: how to price SaaS\n2 posts matched\.\nTheme 1[^\n]*: posts \[1\] \[2\]\./,
    );
  });

  test("an answer citing nothing, or citing a result below the floor, falls back to the themed summary", async () => {
    fake.behave({ kind: "complete", content: "Founders move away from per-seat pricing to usage pricing." });
    assert.equal(
      await summarizer().summarize("how to price SaaS", results),
      themedSummary("how to price SaaS", results),
    );
    assert.equal(fallbacks.at(-1), "rejected answer");
    // The second result is below the floor: it is returned but not shown, so citing it is refused.
    const scored = [
      { ...results[0]!, relevance: 0.9 },
      { ...results[1]!, relevance: MATCH_FLOOR / 2 },
    ];
    fake.behave({ kind: "complete", content: "Value-based pricing raised revenue [2]. Per-seat pricing hurts [1]." });
    const s = await summarizer().summarize("how to price SaaS", scored, undefined, { matched: 1 });
    assert.equal(s, themedSummary("how to price SaaS", scored, { matched: 1 }));
    assert.doesNotMatch(
      fake.requests.at(-1)!.body.messages[1].content,
      /\[2\] \(/,
      "a result below the floor is not shown",
    );
  });

  test("acceptSummary takes only plain citations of the posts shown", () => {
    assert.equal(acceptSummary("Per-seat pricing hurts growth [1].  ", [1, 2]), "Per-seat pricing hurts growth [1].");
    assert.equal(acceptSummary("Per-seat pricing hurts growth.", [1, 2]), undefined);
    assert.equal(acceptSummary("Per-seat pricing hurts growth [3].", [1, 2]), undefined);
    assert.equal(acceptSummary("Per-seat pricing hurts growth [1][n].", [1, 2]), undefined);
    assert.equal(acceptSummary("Per-seat pricing hurts growth [1, 2].", [1, 2]), undefined);
  });

  test("an answer citing a post that is not in the results is refused", async () => {
    fake.behave({ kind: "complete", content: "Everyone loves pricing [7]. It is great [1]." });
    const s = await summarizer().summarize("how to price SaaS", results);
    assert.equal(s, themedSummary("how to price SaaS", results));
    assert.equal(fallbacks.at(-1), "rejected answer");
  });

  test("timeouts, HTTP errors and malformed bodies fall back to extractive", async () => {
    fake.behave({ kind: "complete", content: "too late [1].", delayMs: 4000 });
    assert.equal(await summarizer().summarize("price", results), themedSummary("price", results));
    assert.equal(fallbacks.at(-1), "timeout");
    fake.behave({ kind: "status", status: 500 });
    assert.equal(await summarizer().summarize("price", results), themedSummary("price", results));
    assert.equal(fallbacks.at(-1), "http 500");
    fake.behave({ kind: "garbage" });
    assert.equal(await summarizer().summarize("price", results), themedSummary("price", results));
    assert.equal(fallbacks.at(-1), "malformed response");
  });

  test("no results: no model call, a summary that says nothing matched", async () => {
    const before = fake.requests.length;
    assert.match(await summarizer().summarize("zzz", []), /^No discussions matched/);
    assert.equal(fake.requests.length, before);
  });

  test("the caller's cancellation propagates instead of falling back", async () => {
    fake.behave({ kind: "complete", content: "slow [1].", delayMs: 1000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("client went away")), 50);
    const s = createLlmSummarizer({ baseUrl: fake.url, model: "m", apiKey: undefined, timeoutMs: 5000 });
    await assert.rejects(s.summarize("price", results, controller.signal));
  });
});
