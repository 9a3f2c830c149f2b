/**
 * The rarity weight of trending keywords: inverse document frequency over the posts the topic
 * model was built from, the highest for terms the model does not list, 1 without corpus counts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { termRarity } from "../../src/core/trends/rarity.js";
import { buildTopicModel } from "../../src/topics/build.js";
import { postText, terms } from "../../src/topics/terms.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import { checkTopicModel, MIN_CORPUS_DOCUMENTS } from "../../src/topics/topic-model.js";
import { trendCorpus } from "./fixture.js";

const { posts } = trendCorpus(false);
const { model } = buildTopicModel(posts, { k: 3, seed: 42, now: new Date(0) });

describe("corpus term counts in the topic model", () => {
  it("counts, per term, the posts that use it, listing terms of at least MIN_CORPUS_DOCUMENTS posts", () => {
    const corpus = model.corpus!;
    assert.equal(corpus.posts, posts.length);
    const df = new Map(corpus.documentFrequency);
    for (const term of ["bitcoin", "helpful", "python"]) {
      const using = posts.filter((p) => terms(postText(p.title, p.content)).includes(term)).length;
      assert.ok(using >= MIN_CORPUS_DOCUMENTS, term);
      assert.equal(df.get(term), using, term);
    }
    assert.ok(corpus.documentFrequency.every(([, n]) => n >= MIN_CORPUS_DOCUMENTS));
    const counts = corpus.documentFrequency.map(([, n]) => n);
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => b - a),
    );
  });

  it("a model file with malformed corpus counts is refused with a reason; one without them loads", () => {
    const plain = JSON.parse(JSON.stringify(model)) as TopicModel;
    delete plain.corpus;
    assert.equal(checkTopicModel(plain, "m.json").corpus, undefined);
    for (const corpus of [
      null,
      { posts: 3 },
      { posts: "3", documentFrequency: [] },
      { posts: 3, documentFrequency: [["a", "1"]] },
      { posts: 3, documentFrequency: ["a"] },
    ]) {
      assert.throws(
        () => checkTopicModel({ ...model, corpus }, "m.json"),
        /m\.json is not a topic model: corpus term counts are malformed/,
      );
    }
  });
});

describe("termRarity", () => {
  const corpus = {
    posts: 999,
    documentFrequency: [
      ["mean", 499],
      ["discount", 9],
    ] as [string, number][],
  };
  const withCorpus: TopicModel = { ...model, corpus };
  const rarity = termRarity(withCorpus);

  it("is ln((N + 1) / (df + 1)): a word of half the posts weighs ln 2, one of 9 in 999 ln 100", () => {
    assert.ok(Math.abs(rarity("mean") - Math.log(2)) < 1e-12);
    assert.ok(Math.abs(rarity("discount") - Math.log(100)) < 1e-12);
  });

  it("gives a term the model does not list (rarer than the listing's floor, or newer than the model) the highest weight", () => {
    assert.ok(Math.abs(rarity("shapeshift") - Math.log(1000 / MIN_CORPUS_DOCUMENTS)) < 1e-12);
    assert.ok(rarity("shapeshift") > rarity("discount"));
  });

  it("weighs every term 1 for a model without corpus counts, or no model", () => {
    const { corpus: _omit, ...old } = withCorpus;
    assert.equal(termRarity(old)("mean"), 1);
    assert.equal(termRarity(undefined)("discount"), 1);
  });
});
