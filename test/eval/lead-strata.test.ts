import assert from "node:assert/strict";
import { test } from "node:test";
import { apportion, scoreBand, splitOf, stratumOf, subforumGroup } from "./lead-strata.js";

test("apportion gives every stratum one, the rest by weight, and sums to the total", () => {
  const shares = apportion(
    new Map([
      ["big", 9],
      ["mid", 3],
      ["tiny", 0],
    ]),
    15,
  );
  // 12 left after one each: 9 and 3 of 12 -> 1+9, 1+3, 1+0.
  assert.deepEqual(
    [...shares],
    [
      ["big", 10],
      ["mid", 4],
      ["tiny", 1],
    ],
  );
  const odd = apportion(
    new Map([
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]),
    7,
  );
  assert.equal(
    [...odd.values()].reduce((s, n) => s + n, 0),
    7,
  );
  assert.throws(
    () =>
      apportion(
        new Map([
          ["a", 1],
          ["b", 1],
        ]),
        1,
      ),
    /below the number of strata/,
  );
});

test("the split is a function of the id alone, near 60/20/20 over many ids", () => {
  assert.equal(splitOf("reddit:abc"), splitOf("reddit:abc"));
  const counts = new Map<string, number>();
  for (let i = 0; i < 10000; i++) {
    const s = splitOf(`hackernews:${i}`);
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  assert.ok(Math.abs(counts.get("train")! - 6000) < 250, JSON.stringify([...counts]));
  assert.ok(Math.abs(counts.get("dev")! - 2000) < 200, JSON.stringify([...counts]));
  assert.ok(Math.abs(counts.get("test")! - 2000) < 200, JSON.stringify([...counts]));
});

test("strata name the subforum group, candidate and score band", () => {
  assert.equal(subforumGroup({ source: "hackernews", subforum: "" }), "hackernews");
  assert.equal(subforumGroup({ source: "stackexchange", subforum: "onstartups" }), "stackexchange");
  assert.equal(subforumGroup({ source: "reddit", subforum: "buildapcforme" }), "reddit:consumer_electronics");
  assert.equal(subforumGroup({ source: "reddit", subforum: "GraphicDesign" }), "reddit:design_creative");
  assert.equal(subforumGroup({ source: "reddit", subforum: "somethingelse" }), "reddit:general");
  assert.deepEqual(
    [scoreBand("", 0), scoreBand("pain_point", 49), scoreBand("pain_point", 50), scoreBand("pain_point", 70)],
    ["none", "low", "mid", "high"],
  );
  assert.equal(
    stratumOf({ source: "reddit", subforum: "SEO" }, "solution_request", 81),
    "reddit:marketing_advertising/solution_request/high",
  );
  assert.equal(stratumOf({ source: "hackernews", subforum: "" }, "", 0), "hackernews/none/none");
});
