/**
 * The absolute relevance of a post to a lead query: the blend of cosine and word coverage, the
 * subject rule (every content word, or the subject similarity), and the per-model floors.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  absoluteRelevance,
  cosineOfUnit,
  coverage,
  coverageWords,
  judgeLead,
  LEAD_FLOORS,
  leadFloorFor,
  postWords,
  relevanceQuery,
  subjectMatches,
  subjectWords,
} from "../../src/core/absolute-relevance.js";

const ALPHAS = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };

describe("absolute relevance", () => {
  test("coverage counts the query's words of three letters or more, once each", () => {
    assert.deepEqual(coverageWords("a crm for dentists to use, crm"), ["crm", "for", "dentists", "use"]);
    // "vs" joins the things compared and is no word of either (keyword-text.ts).
    assert.deepEqual(coverageWords("Stripe vs Braintree"), ["stripe", "braintree"]);
    const words = postWords({ title: "Which CRM do dentists use?", content: "Our clinic has three chairs." });
    assert.equal(coverage(["crm", "for", "dentists", "use"], words), 3 / 4);
    assert.equal(coverage([], words), 0);
  });

  test("the relevance blends cosine and coverage by the query's hybrid weight, clamped to 0..1", () => {
    const long = relevanceQuery("crm for dentists", ALPHAS);
    const short = relevanceQuery("crm", ALPHAS);
    assert.equal(long.alpha, 0.5);
    assert.equal(short.alpha, 0.3);
    assert.equal(absoluteRelevance(0.8, 0.5, 0.5), 0.65);
    assert.ok(Math.abs(absoluteRelevance(0.8, 0.3, 1) - 0.94) < 1e-12);
    assert.equal(absoluteRelevance(-0.9, 0.5, 0), 0);
    assert.equal(absoluteRelevance(1.2, 1, 0), 1);
  });

  test("subject words are the content words; a query of stop words alone keeps them", () => {
    assert.deepEqual(subjectWords("dentist in Boston"), ["dentist", "boston"]);
    assert.deepEqual(subjectWords("where to buy a used tractor"), ["buy", "tractor"]);
    assert.deepEqual(subjectWords("what about this"), ["what", "about", "this"]);
  });

  test("the subject matches by all its words (plural or possessive forms too) or by the subject similarity", () => {
    const q = relevanceQuery("dentist in Boston", ALPHAS);
    const boston = postWords({ title: "120k student loan debt, living in Boston", content: "" });
    const dentists = postWords({ title: "Dentists of Boston: which CRM?", content: "" });
    const possessive = postWords({ title: "My dentist's office in boston", content: "" });
    assert.equal(subjectMatches(q, 0.3, boston, 0.5), false, "one subject word is not the subject");
    assert.equal(subjectMatches(q, 0.3, dentists, 0.5), true);
    assert.equal(subjectMatches(q, 0.3, possessive, 0.5), true);
    assert.equal(subjectMatches(q, 0.5, boston, 0.5), true, "the embedding side stands in for missing words");
    const plural = relevanceQuery("dentists", ALPHAS);
    assert.equal(subjectMatches(plural, 0, postWords({ title: "a dentist", content: "" }), 0.5), true);
  });

  test("a post is about the query when it reaches the floor and matches the subject", () => {
    const q = relevanceQuery("used tractor", ALPHAS);
    const floor = { floor: 0.5, subjectSimilarity: 0.6 };
    const tractor = postWords({ title: "Where do I find a used tractor?", content: "" });
    const car = postWords({ title: "What should I negotiate when buying a used car?", content: "" });
    // Coverage 1 and cosine 0.4: 0.3 * 0.4 + 0.7 * 1 = 0.82.
    const onTopic = judgeLead(q, 0.4, tractor, floor);
    assert.ok(Math.abs(onTopic.relevance - 0.82) < 1e-12);
    assert.equal(onTopic.about, true);
    // Half the words and a close cosine reach the floor (0.3 * 0.55 + 0.7 * 0.5 = 0.515) but miss the subject.
    const offTopic = judgeLead(q, 0.55, car, floor);
    assert.ok(offTopic.relevance >= floor.floor);
    assert.equal(offTopic.about, false);
    // The subject alone is not enough either.
    assert.equal(judgeLead(q, 0.6, postWords({ title: "farm", content: "" }), floor).about, false);
  });

  test("floors are per model, with the default encoder's for an unknown model", () => {
    assert.deepEqual(leadFloorFor("all-minilm-l6-v2-384"), LEAD_FLOORS["all-minilm-l6-v2-384"]);
    assert.deepEqual(leadFloorFor("text-embedding-3-small"), LEAD_FLOORS["use-lite-512"]);
    for (const f of Object.values(LEAD_FLOORS)) {
      assert.ok(f.floor > 0 && f.floor < 1);
      assert.ok(f.subjectSimilarity > 0 && f.subjectSimilarity < 1);
    }
  });

  test("the cosine of unit vectors is their dot product, and widths must agree", () => {
    const a = Float32Array.from([0.6, 0.8]);
    const b = Float32Array.from([1, 0]);
    assert.ok(Math.abs(cosineOfUnit(a, b) - 0.6) < 1e-7);
    assert.throws(() => cosineOfUnit(a, Float32Array.from([1])), /2-value and a 1-value/);
  });
});
