/**
 * The trend formulas: growth from zero, robust z, the score's range and blend, trending keywords.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  acceleration,
  FULL_HISTORY_WINDOWS,
  growthRate,
  median,
  robustZ,
  trendScore,
  Z_CLIP,
} from "../../src/core/trends/formulas.js";
import { trendingKeywords } from "../../src/core/trends/log-odds.js";

describe("growthRate", () => {
  it("is finite for a topic from nothing and equals (n + 5) / 5 - 1", () => {
    assert.equal(growthRate(20, 0), 4);
    assert.equal(growthRate(0, 0), 0);
    assert.ok(Number.isFinite(growthRate(1_000_000, 0)));
  });
  it("is 0 without change, negative when falling, above -1 even when a topic vanishes", () => {
    assert.equal(growthRate(7, 7), 0);
    assert.ok(growthRate(3, 10) < 0);
    const gone = growthRate(0, 1_000_000);
    assert.ok(gone > -1 && gone < -0.99);
  });
  it("is smoothed: 1 -> 2 posts is far less than doubling", () => {
    assert.ok(Math.abs(growthRate(2, 1) - 1 / 6) < 1e-12);
  });
});

describe("robustZ", () => {
  it("is 0 at the median and uses the MAD scale", () => {
    assert.equal(robustZ(10, [8, 10, 12, 10, 9, 11, 10, 10]), 0);
    // median 10, MAD 1 -> scale max(1.4826, sqrt(11)) = 3.3166
    assert.ok(Math.abs(robustZ(20, [9, 10, 11, 10, 10, 9, 11, 10]) - 10 / Math.sqrt(11)) < 1e-9);
  });
  it("does not explode on an all-zero history (Poisson floor) and is clipped", () => {
    assert.equal(robustZ(1, [0, 0, 0, 0]), 1);
    assert.equal(robustZ(10_000, [0, 0, 0, 0]), Z_CLIP);
    assert.equal(robustZ(0, [1000, 1000, 1000]), -Z_CLIP);
  });
  it("handles an empty history", () => {
    assert.equal(robustZ(0, []), 0);
    assert.equal(median([]), 0);
    assert.equal(median([3, 1, 2, 10]), 2.5);
  });
});

describe("acceleration", () => {
  it("counts the robust z in proportion to the history behind it, fully from four windows", () => {
    assert.equal(FULL_HISTORY_WINDOWS, 4);
    // One earlier window: its MAD is 0, so z is the Poisson floor's (57 - 28) / sqrt(29), clipped to 5.
    assert.equal(robustZ(57, [28]), Z_CLIP);
    assert.equal(acceleration(57, [28]), Z_CLIP / 4);
    assert.ok(Math.abs(acceleration(57, [28, 30]) - robustZ(57, [28, 30]) / 2) < 1e-12);
    const full = [20, 28, 35, 30];
    assert.equal(acceleration(57, full), robustZ(57, full));
    assert.equal(acceleration(57, [...full, 25, 31, 29, 33]), robustZ(57, [...full, 25, 31, 29, 33]));
  });
  it("is 0 with no history and keeps the sign of a fall", () => {
    assert.equal(acceleration(100, []), 0);
    assert.ok(acceleration(2, [30]) < 0);
  });
});

describe("trendScore", () => {
  const typical = { typicalCount: 10, typicalEngagement: 20 };
  it("is 50 for a typical topic with a typical history", () => {
    assert.ok(Math.abs(trendScore({ count: 10, engagementPerPost: 20, z: 0, ...typical }) - 50) < 1e-9);
  });
  it("stays strictly within 0..100 at the extremes", () => {
    const hi = trendScore({ count: 1e9, engagementPerPost: 1e9, z: 1e9, ...typical });
    const lo = trendScore({ count: 0, engagementPerPost: 0, z: -1e9, ...typical });
    assert.ok(hi <= 100 && hi > 99, String(hi));
    assert.ok(lo >= 0 && lo < 5, String(lo));
  });
  it("keeps surging topics apart: twice the posts at the same clipped z is points more, not a fraction of one", () => {
    const surging = { engagementPerPost: 20, z: Z_CLIP, ...typical };
    const a = trendScore({ ...surging, count: 40 });
    const b = trendScore({ ...surging, count: 80 });
    assert.ok(a < 95 && b - a >= 2, `${a} vs ${b}`);
  });
  it("rises with each of acceleration, volume and engagement", () => {
    const base = { count: 10, engagementPerPost: 20, z: 0, ...typical };
    const s = trendScore(base);
    assert.ok(trendScore({ ...base, z: 2 }) > s);
    assert.ok(trendScore({ ...base, count: 40 }) > s);
    assert.ok(trendScore({ ...base, engagementPerPost: 80 }) > s);
  });
});

describe("trendingKeywords", () => {
  const counts = (text: string) => {
    const m = new Map<string, number>();
    for (const w of text.split(" ")) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  };
  const background = counts("google seo ranking backlinks ".repeat(50).trim());
  it("finds the words new in this window, not the topic's usual words", () => {
    const prev = counts("google seo ranking backlinks ".repeat(10).trim());
    const now = counts(
      `${"google seo ranking backlinks ".repeat(10)}helpful content update helpful content update helpful content`,
    );
    const top = trendingKeywords(now, prev, background).map((k) => k.term);
    assert.deepEqual(top.slice(0, 3).sort(), ["content", "helpful", "update"]);
    assert.ok(!top.includes("google"));
  });
  it("works with an empty previous window (against the background alone) and an empty window", () => {
    const top = trendingKeywords(counts("helpful helpful seo google"), new Map(), background);
    assert.equal(top[0]?.term, "helpful");
    assert.deepEqual(trendingKeywords(new Map(), counts("a b"), background), []);
  });
  it("ranks by z times the term's weight: an equal rise of a rare word outranks a common one's", () => {
    // "mean" is in the topic's background and "discount" is not: the larger prior gives "mean"
    // the smaller variance, so the larger z at the same counts (proportions as in a small window).
    const bg = counts(`${"google seo ranking backlinks ".repeat(2500)}${"mean ".repeat(20)}`.trim());
    const prev = counts("google seo ranking backlinks ".repeat(45).trim());
    const now = counts(`${"google seo ranking backlinks ".repeat(75)}mean mean discount discount`);
    const plain = trendingKeywords(now, prev, bg).map((k) => k.term);
    assert.deepEqual(plain.slice(0, 2), ["mean", "discount"]);
    const rarity = new Map([
      ["mean", 1],
      ["discount", 4],
    ]);
    const weighted = trendingKeywords(now, prev, bg, { weight: (t) => rarity.get(t) ?? 2 });
    assert.deepEqual(
      weighted.slice(0, 2).map((k) => k.term),
      ["discount", "mean"],
    );
    for (const k of weighted) assert.equal(k.score, k.z * (rarity.get(k.term) ?? 2));
  });
  it("leaves out a plural beside its singular and fills the list from further down", () => {
    const prev = counts("google seo ranking backlinks ".repeat(10).trim());
    const now = counts(
      `${"google seo ranking backlinks ".repeat(10)}coupon coupon coupon coupons coupons udemy udemy courses courses course course book book`,
    );
    // Equal counts rank alphabetically: book, coupons, course, courses, udemy.
    const top = trendingKeywords(now, prev, background, { top: 4 }).map((k) => k.term);
    assert.deepEqual(top, ["coupon", "book", "course", "udemy"]);
  });
  it("ignores words seen once and returns at most `top`", () => {
    const now = counts("alpha alpha beta beta gamma gamma delta delta eps eps zeta zeta once");
    const top = trendingKeywords(now, new Map(), new Map(), { top: 5 });
    assert.equal(top.length, 5);
    assert.ok(!top.some((k) => k.term === "once"));
    for (const k of top) assert.ok(Number.isFinite(k.z) && k.z > 0);
  });
});
