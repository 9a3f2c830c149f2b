import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidateDepth, fuse, HYBRID_WINDOW, normalise } from "../../src/index/fusion.js";

describe("normalise", () => {
  it("maps the best to 1, the worst to 0, linearly between", () => {
    const n = normalise([
      { id: "a", score: 10 },
      { id: "b", score: 5 },
      { id: "c", score: 0 },
    ]);
    assert.deepEqual(
      [...n],
      [
        ["a", 1],
        ["b", 0.5],
        ["c", 0],
      ],
    );
  });
  it("gives 1 to every candidate of a side whose scores are all equal", () => {
    assert.deepEqual(
      [
        ...normalise([
          { id: "a", score: 3 },
          { id: "b", score: 3 },
        ]),
      ],
      [
        ["a", 1],
        ["b", 1],
      ],
    );
  });
  it("handles negative scores (cosine similarity)", () => {
    assert.deepEqual(
      [
        ...normalise([
          { id: "a", score: 0.5 },
          { id: "b", score: -0.5 },
        ]),
      ],
      [
        ["a", 1],
        ["b", 0],
      ],
    );
  });
});

describe("fuse (relativeScore)", () => {
  const kw = [
    { id: "k1", score: 12 },
    { id: "both", score: 6 },
    { id: "k3", score: 0.5 },
  ];
  const vec = [
    { id: "v1", score: 0.9 },
    { id: "both", score: 0.7 },
    { id: "v3", score: 0.1 },
  ];

  it("weights the normalised sides by alpha and sorts descending", () => {
    const out = fuse(kw, vec, 0.5, "relativeScore");
    const both = (1 - 0.5) * ((6 - 0.5) / 11.5) + 0.5 * ((0.7 - 0.1) / 0.8);
    assert.equal(out[0]!.id, "both");
    assert.ok(Math.abs(out[0]!.score - both) < 1e-12);
    assert.deepEqual(
      out.map((h) => h.id),
      ["both", "k1", "v1", "k3", "v3"],
    );
    for (const h of out) assert.ok(h.score >= 0 && h.score <= 1);
  });

  it("alpha 0 keeps the keyword order with keyword scores on 0..1", () => {
    const out = fuse(kw, vec, 0, "relativeScore").filter((h) => h.score > 0);
    assert.deepEqual(
      out.map((h) => h.id),
      ["k1", "both"],
    );
    assert.equal(out[0]!.score, 1);
  });

  it("alpha 1 keeps the vector order", () => {
    const out = fuse(kw, vec, 1, "relativeScore").filter((h) => h.score > 0);
    assert.deepEqual(
      out.map((h) => h.id),
      ["v1", "both"],
    );
  });

  it("breaks ties by id so the order is deterministic", () => {
    const out = fuse(
      [
        { id: "b", score: 1 },
        { id: "a", score: 1 },
      ],
      [],
      0.3,
      "relativeScore",
    );
    assert.deepEqual(
      out.map((h) => h.id),
      ["a", "b"],
    );
  });

  it("returns nothing for two empty sides and rejects alpha outside 0..1", () => {
    assert.deepEqual(fuse([], [], 0.5, "relativeScore"), []);
    assert.throws(() => fuse(kw, vec, 1.1, "relativeScore"), RangeError);
    assert.throws(() => fuse(kw, vec, Number.NaN, "relativeScore"), RangeError);
  });
});

describe("fuse (rankedFusion)", () => {
  it("scores first-on-both-sides as 1 and uses reciprocal ranks otherwise", () => {
    const out = fuse(
      [
        { id: "a", score: 9 },
        { id: "b", score: 1 },
      ],
      [
        { id: "a", score: 0.9 },
        { id: "c", score: 0.8 },
      ],
      0.5,
      "rankedFusion",
    );
    assert.deepEqual(
      out.map((h) => h.id),
      ["a", "b", "c"],
    );
    assert.equal(out[0]!.score, 1);
    assert.ok(Math.abs(out[1]!.score - 0.5 * (60 / 61)) < 1e-12);
    assert.equal(out[1]!.score, out[2]!.score);
  });
});

describe("candidateDepth", () => {
  it("is constant within a window and grows by whole windows", () => {
    assert.equal(candidateDepth(0, 10), HYBRID_WINDOW);
    assert.equal(candidateDepth(190, 10), HYBRID_WINDOW);
    assert.equal(candidateDepth(191, 10), 2 * HYBRID_WINDOW);
  });
});
