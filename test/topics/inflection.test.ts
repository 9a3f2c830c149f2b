/**
 * Keyword lists keep one form of a word: the plural test ("entrepreneurs" next to "entrepreneur"
 * in a topic label, "coupons" next to "coupon" in a trend's keywords), and what it must not merge.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classKeywords } from "../../src/topics/ctfidf.js";
import { distinctForms, singularKey } from "../../src/topics/inflection.js";

describe("singularKey", () => {
  it("takes plurals to their singular", () => {
    for (const [plural, singular] of [
      ["entrepreneurs", "entrepreneur"],
      ["coupons", "coupon"],
      ["companies", "company"],
      ["taxes", "tax"],
      ["businesses", "business"],
      ["switches", "switch"],
      ["apps", "app"],
    ]) {
      assert.equal(singularKey(plural!), singular, plural);
      assert.equal(singularKey(singular!), singular, singular);
    }
  });
  it("leaves words that only end in s alone", () => {
    // Three letters are too few to tell ("gas", "bus"); ss, us and is endings are not plurals.
    for (const word of ["gas", "bus", "ios", "glass", "access"]) assert.equal(singularKey(word), word);
    assert.equal(singularKey("business"), "business");
    assert.equal(singularKey("analysis"), "analysis");
    assert.equal(singularKey("status"), "status");
  });
});

describe("distinctForms", () => {
  it("keeps the best-ranked form and fills up from further down the list", () => {
    assert.deepEqual(
      distinctForms(["entrepreneurs", "free", "entrepreneur", "lessons", "lesson", "tips"], 3, (t) => t),
      ["entrepreneurs", "free", "lessons"],
    );
    assert.deepEqual(
      distinctForms(["a1", "b1"], 5, (t) => t),
      ["a1", "b1"],
    );
  });
  it("applies to topic labels: a cluster's keywords hold one form of each word", () => {
    const counts = [
      new Map([
        ["entrepreneurs", 9],
        ["entrepreneur", 8],
        ["free", 7],
        ["lessons", 3],
      ]),
      new Map([
        ["pricing", 9],
        ["saas", 4],
      ]),
    ];
    const docFrequency = new Map([...counts[0]!.keys(), ...counts[1]!.keys()].map((t) => [t, 5]));
    const [first] = classKeywords({ counts, docFrequency }, 3);
    assert.deepEqual(
      first!.map((k) => k.term),
      ["entrepreneurs", "free", "lessons"],
    );
  });
});
