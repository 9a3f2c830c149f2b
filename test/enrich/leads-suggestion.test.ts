/**
 * The suggestion head (src/enrich/leads/heads.ts) and how the lead classifier uses it: the
 * committed model loads and says where its training sentences came from; with a post's vector, a
 * cue word in a sentence that asks for nothing is doubted, and the head never makes a request no
 * cue found; without a vector the rules decide alone. The sentences below were written for
 * this test and are in neither seed file.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Embedder } from "../../src/enrich/embedder.js";
import { headProbability, loadLeadHead } from "../../src/enrich/leads/heads.js";
import { createRuleLeadClassifier } from "../../src/enrich/leads/rule-classifier.js";
import { startUseEmbedder, USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import type { Post } from "../../src/model/post.js";

function post(content: string): Post {
  return {
    id: "t:1",
    source: "test",
    nativeId: "1",
    title: "",
    content,
    subforum: "",
    author: "",
    upvotes: 0,
    comments: 0,
    created: 0,
    url: "",
  };
}

describe("suggestion model file", () => {
  it("loads, expects the bundled embedder's vectors and names hand-written training data", () => {
    const m = loadLeadHead("suggestion");
    assert.equal(m.embeddingModel, USE_MODEL_ID);
    assert.equal(m.dimensions, 512);
    assert.deepEqual(m.softmax.classes, ["other", "suggestion"]);
    assert.match(String(m.provenance.origin), /hand/);
    assert.match(String(m.provenance.data), /seeds\/suggestion-seeds\.tsv$/);
    assert.equal(headProbability("suggestion", new Float32Array(384)), undefined);
    assert.equal(headProbability("suggestion", undefined), undefined);
  });
});

describe("lead classifier with the suggestion head", () => {
  let embedder: Embedder;
  const leads = createRuleLeadClassifier();
  before(async () => {
    embedder = await startUseEmbedder(1);
  });
  after(async () => {
    await embedder.close();
  });

  async function decide(texts: readonly string[], withVector: boolean) {
    const vectors = await embedder.embed(texts);
    return texts.map((t, i) => leads.classify(post(t), withVector ? vectors[i] : undefined));
  }

  const statements = [
    "Please remember I only started this job in March.",
    "The vendor said the cluster must be restarted after every patch.",
  ];

  it("never makes a solution request without a cue", async () => {
    const text = ["A calendar view for the task list would be handy for planning."];
    const [withVector] = await decide(text, true);
    const [rulesOnly] = await decide(text, false);
    assert.equal(withVector!.leadType === "solution_request", rulesOnly!.leadType === "solution_request");
    const noCue = ["Per-folder permissions are what our agency is missing most."];
    assert.notEqual((await decide(noCue, true))[0]!.leadType, "solution_request");
  });

  it("doubts a request cue in a sentence that asks for nothing", async () => {
    const vectors = await embedder.embed(statements);
    const rulesOnly = await decide(statements, false);
    for (const [i, text] of statements.entries()) {
      assert.equal(rulesOnly[i]!.leadType, "solution_request", `the rules alone take "${text}" for a request`);
      const p = headProbability("suggestion", vectors[i])!;
      assert.ok(p < 0.5, `${text}: P(suggestion) ${p}`);
      assert.notEqual(leads.classify(post(text), vectors[i]).leadType, "solution_request", text);
    }
  });

  it("keeps a clear ask a solution request with or without the vector", async () => {
    const text = ["Please add an option to export invoices as PDF."];
    assert.equal((await decide(text, false))[0]!.leadType, "solution_request");
    assert.equal((await decide(text, true))[0]!.leadType, "solution_request");
  });
});
