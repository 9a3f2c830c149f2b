import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidatePhrases, phraseLabel, phraseMatcher, phrasesIn } from "../../src/topics/phrases.js";

describe("phrase labels", () => {
  it("matches a pair only as two adjacent whole words", () => {
    const re = phraseMatcher("san francisco");
    assert.ok(re.test("moving to san francisco next year"));
    assert.ok(re.test("san\nfrancisco"));
    assert.ok(!re.test("san jose and francisco"));
    assert.ok(!re.test("hasan francisco"));
    assert.ok(phraseMatcher("node.js c++").test("node.js c++ bindings"));
    assert.ok(!phraseMatcher("node.js c++").test("nodexjs c++"));
  });

  it("finds each phrase once per text, links left out", () => {
    const matchers = new Map(["open source", "source open"].map((p) => [p, phraseMatcher(p)]));
    assert.deepEqual(phrasesIn("Open Source tools; open source again", matchers), ["open source"]);
    assert.deepEqual(phrasesIn("see https://x.org/open source", matchers), []);
  });

  it("pairs the leading keywords in both orders", () => {
    assert.deepEqual(candidatePhrases(["a", "b"]), ["a b", "b a"]);
    assert.equal(candidatePhrases(["a", "b", "c", "d", "e", "f"]).length, 20);
  });

  it("joins two keywords most of their posts write together, in the written order", () => {
    const words = new Map([
      ["robot", 30],
      ["artificial", 20],
      ["intelligence", 22],
      ["alphago", 9],
    ]);
    const phrases = new Map([["artificial intelligence", 18]]);
    assert.equal(
      phraseLabel(["robot", "artificial", "intelligence", "alphago"], words, phrases),
      "robot · artificial intelligence · alphago",
    );
  });

  it("keeps single words when the pair is rare or seldom written together", () => {
    const words = new Map([
      ["open", 40],
      ["source", 30],
      ["github", 20],
    ]);
    assert.equal(
      phraseLabel(["open", "source", "github"], words, new Map([["open source", 10]])),
      "open · source · github",
    );
    assert.equal(
      phraseLabel(["open", "source", "github"], words, new Map([["open source", 2]])),
      "open · source · github",
    );
    assert.equal(
      phraseLabel(["open", "source", "github"], words, new Map([["open source", 25]])),
      "open source · github",
    );
    assert.equal(phraseLabel([], words, new Map()), "(no keywords)");
  });
});
