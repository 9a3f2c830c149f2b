/**
 * The product tagger (src/enrich/leads/products/): tokens, where a gold target stands in a
 * sentence, the averaged perceptron on a toy task, findTargetProduct falling back to the tagger
 * when the rules name nothing, and the committed model equal to a re-train from the labels.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findTargetProduct } from "../../src/enrich/leads/product.js";
import { argmax, PerceptronTrainer } from "../../src/enrich/leads/products/perceptron.js";
import { tokenize } from "../../src/enrich/leads/products/tagger.js";
import { TAGGER_MODEL_FILE, taggerSentence } from "../../src/enrich/leads/products/tagger-model.js";
import { goldRanges, goldTags, trainTagger } from "../../src/enrich/leads/products/train-tagger.js";
import { sentencesOf } from "../../src/enrich/leads/text.js";
import type { Post } from "../../src/model/post.js";
import { corporaSkip } from "../harness/seed.js";

function post(title: string, content: string): Post {
  return {
    id: "t:1",
    source: "test",
    nativeId: "1",
    title,
    content,
    subforum: "smallbusiness",
    author: "",
    upvotes: 0,
    comments: 0,
    created: 0,
    url: "",
  };
}

describe("product tagger", () => {
  it("keeps the marks inside names in one token", () => {
    assert.deepEqual(
      tokenize("Node.js or C++ on Hyper-V? (c#, can't)").map((t) => t.text),
      ["Node.js", "or", "C++", "on", "Hyper-V", "c#", "can't"],
    );
  });

  it("finds a gold target in a sentence, whole or by its longest run of words", () => {
    const toks = tokenize("Looking for a cheap gaming PC, any gaming PCs under $600?");
    assert.deepEqual(goldRanges(toks, "gaming pc"), [
      [4, 6],
      [7, 9],
    ]);
    assert.deepEqual(goldRanges(tokenize("Which backup tools do you use?"), "backup tool for servers"), [[1, 3]]);
    // Function words alone never make a span.
    assert.deepEqual(goldRanges(tokenize("What is the best for me?"), "the best of"), []);
    assert.deepEqual(goldTags(taggerSentence("A CRM for us", "focus"), "crm"), [0, 1, 0, 0]);
  });

  it("marks gazetteer names as token ranges", () => {
    assert.deepEqual(taggerSentence("Moving from Google AdWords to Bing", "title").listed, [[2, 4]]);
  });

  it("learns a toy tagging with the averaged perceptron, the same every run", () => {
    const fit = () => {
      const t = new PerceptronTrainer(2);
      for (let epoch = 0; epoch < 5; epoch++)
        for (const [f, y] of [
          [["bias", "w=crm"], 1],
          [["bias", "w=the"], 0],
          [["bias", "w=vps"], 1],
          [["bias", "w=a"], 0],
        ] as const) {
          const s = t.scores(f);
          t.update(f, y, argmax(s));
        }
      return t.averaged();
    };
    const w = fit();
    assert.deepEqual(w, fit());
    assert.ok(w.get("w=crm")![1]! > w.get("w=crm")![0]!);
    assert.ok(w.get("w=the")![0]! > w.get("w=the")![1]!);
  });

  it("names what the gazetteer and the kinds of things lack", () => {
    const one = (title: string, body = ""): string => {
      const s = sentencesOf(post(title, body));
      return findTargetProduct(s, s[0]).name.toLowerCase();
    };
    assert.match(one("Need a gaming PC build for $700"), /\bpc\b/);
    // The rules still come first, and the tagger can be turned off.
    assert.equal(one("CRM Recommendations?"), "crm");
    const s = sentencesOf(post("Need a gaming PC build for $700", ""));
    assert.equal(findTargetProduct(s, s[0], undefined, { tagger: false }).name, "");
  });
});

describe("committed product tagger", { skip: corporaSkip() }, () => {
  it("equals a re-train on the labels with the committed passes and seed", async () => {
    const { loadTargetExamples, taggerExample } = await import("../eval/product-tagger-data.js");
    const train = (await loadTargetExamples()).filter((e) => e.label.split === "train");
    const weights = trainTagger(train.map(taggerExample), {
      epochs: TAGGER_MODEL_FILE.epochs,
      seed: TAGGER_MODEL_FILE.seed,
    });
    assert.deepEqual(Object.fromEntries(weights), TAGGER_MODEL_FILE.weights);
  });
});
