/**
 * The complaint head (src/enrich/leads/heads.ts) on its own: it reads almost any message to a
 * vendor as a complaint, so when no cue and no frustrated tone found pain, it may make a pain
 * point of a statement but not of a question that has no negative word in it. The posts below
 * were written for this test and are in neither seed file.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Embedder } from "../../src/enrich/embedder.js";
import { headProbability } from "../../src/enrich/leads/heads.js";
import { COMPLAINT_ALONE, createRuleLeadClassifier } from "../../src/enrich/leads/rule-classifier.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
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

describe("lead classifier with the complaint head alone", () => {
  let embedder: Embedder;
  // Tone off, so only a cue or the head can find pain.
  const leads = createRuleLeadClassifier({ frustrationMin: 1.01 });
  before(async () => {
    embedder = await startUseEmbedder(1);
  });
  after(async () => {
    await embedder.close();
  });

  it("states a vendor's failure as a pain point", async () => {
    const text = "@AcmeSupport the replacement charger you sent is the wrong model.";
    const [v] = await embedder.embed([text]);
    assert.ok(headProbability("complaint", v)! >= COMPLAINT_ALONE);
    assert.equal(leads.classify(post(text), v).painPoint, text);
  });

  it("does not make a plain question to a vendor a pain point", async () => {
    const questions = [
      "@AcmeHelp does the new router come with a wall mount?",
      "@AcmeCare will my order still arrive by Friday if I pick express delivery?",
    ];
    const vectors = await embedder.embed(questions);
    for (const [i, text] of questions.entries()) {
      // The head alone would call it a complaint: this is the case the rule exists for.
      assert.ok(headProbability("complaint", vectors[i])! >= COMPLAINT_ALONE, text);
      const d = leads.classify(post(text), vectors[i]);
      assert.equal(d.painPoint, "", text);
      assert.notEqual(d.leadType, "pain_point", text);
    }
  });
});
