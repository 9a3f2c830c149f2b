/**
 * TrendsCore over the in-memory oracle store: the window rules (defaults, one day, before any
 * data, empty), the ranking and the per-trend fields.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceleration, trendScore } from "../../src/core/trends/formulas.js";
import { MIN_TREND_POSTS, rank, TrendsCore } from "../../src/core/trends.js";
import { AppError } from "../../src/errors/app-error.js";
import { buildTopicModel } from "../../src/topics/build.js";
import { MIN_LABEL_COVERAGE } from "../../src/topics/topic-model.js";
import { SURGE_WORDS, THEMES, trendCorpus } from "./fixture.js";
import { TrendOracle } from "./trend-oracle.js";

const signal = new AbortController().signal;
const { posts } = trendCorpus(true);
const model = buildTopicModel(posts, { k: 3, seed: 42 }).model;
// The fixture tags posts with theme names; give the model those ids so labels resolve.
const themeOfTopic = (keywords: string[]) =>
  (Object.keys(THEMES) as (keyof typeof THEMES)[]).find(
    (theme) => keywords.filter((k) => (THEMES[theme] as readonly string[]).includes(k)).length >= 3,
  )!;
const labelled = { ...model, topics: model.topics.map((t) => ({ ...t, id: themeOfTopic(t.keywords) })) };
assert.deepEqual(labelled.topics.map((t) => t.id).sort(), ["crypto", "python", "seo"]);

function core(store = new TrendOracle(posts.map((p) => ({ ...p }))), now = () => Date.UTC(2030, 0, 1)) {
  return new TrendsCore({ store, topics: async () => labelled, now });
}

describe("TrendsCore.list", () => {
  it("defaults to the 30 days ending on the newest day with posts", async () => {
    const out = await core().list({ startDate: "", endDate: "", limit: undefined }, signal);
    assert.deepEqual([out.range.startDay, out.range.endDay], ["2024-03-02", "2024-03-31"]);
  });

  it("ranks the surging topic first, with its surge words as trending keywords", async () => {
    const out = await core().list({ startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 }, signal);
    assert.equal(out.trends.length, 3);
    const [top] = out.trends;
    assert.equal(top!.topicId, "seo");
    assert.ok(top!.growthRate > 1, `growth ${top!.growthRate}`);
    assert.deepEqual([...top!.trendingKeywords.slice(0, 3)].sort(), [...SURGE_WORDS].sort());
    for (let i = 1; i < out.trends.length; i++) assert.ok(out.trends[i - 1]!.trendScore >= out.trends[i]!.trendScore);
    const python = out.trends.find((t) => t.topicId === "python")!;
    assert.ok(python.growthRate < 0);
  });

  it("skips a topic whose label words few of its posts use (a catch-all cluster is no theme)", async () => {
    const ask = { startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 };
    const seoless = {
      ...labelled,
      topics: labelled.topics.map((t) => (t.id === "seo" ? { ...t, labelCoverage: MIN_LABEL_COVERAGE / 2 } : t)),
    };
    const out = await new TrendsCore({
      store: new TrendOracle(posts.map((p) => ({ ...p }))),
      topics: async () => seoless,
    }).list(ask, signal);
    assert.deepEqual(out.trends.map((t) => t.topicId).sort(), ["crypto", "python"]);
    const all = await core().list(ask, signal);
    assert.equal(all.trends[0]!.topicId, "seo", "with its coverage as built it ranks first");
  });

  it("counts a keyword by the posts that use it: one post repeating a word does not make it trend", async () => {
    const store = new TrendOracle(posts.map((p) => ({ ...p })));
    // The most engaged crypto post of March, repeating one word forty times.
    const loud = posts.find((p) => p.topicId === "crypto" && p.created >= Date.UTC(2024, 2, 1))!;
    store.posts.push({
      ...loud,
      id: "t:loud",
      nativeId: "loud",
      upvotes: 10_000,
      content: `${loud.content} ${"spreadsheet ".repeat(40)}`,
    });
    const out = await core(store).list({ startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 }, signal);
    const crypto = out.trends.find((t) => t.topicId === "crypto")!;
    assert.ok(
      crypto.samplePosts.some((p) => p.id === "t:loud"),
      "the loud post is among the keyword posts",
    );
    assert.ok(!crypto.trendingKeywords.includes("spreadsheet"), crypto.trendingKeywords.join(", "));
  });

  it("weighs a keyword's rise by its rarity in the model's corpus: a word nearly every post uses goes last", async () => {
    const store = new TrendOracle(posts.map((p) => ({ ...p })));
    const ask = { startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 };
    const plain = (await new TrendsCore({ store, topics: async () => labelled }).list(ask, signal)).trends.find(
      (t) => t.topicId === "seo",
    )!;
    // The first keyword by z alone, made a word of nearly every post of the corpus.
    const common = plain.trendingKeywords[0]!;
    assert.ok(plain.trendingKeywords.length >= 2 && SURGE_WORDS.includes(common), plain.trendingKeywords.join(", "));
    const withCorpus = {
      ...labelled,
      corpus: { posts: 1_000, documentFrequency: [[common, 999]] as [string, number][] },
    };
    const weighted = (await new TrendsCore({ store, topics: async () => withCorpus }).list(ask, signal)).trends.find(
      (t) => t.topicId === "seo",
    )!;
    assert.equal(weighted.trendingKeywords.at(-1), common, weighted.trendingKeywords.join(", "));
    assert.deepEqual([...weighted.trendingKeywords].sort(), [...plain.trendingKeywords].sort());
  });

  it("fills every field consistently with the posts of the window", async () => {
    const out = await core().list({ startDate: "2024-02-01", endDate: "2024-02-29", limit: 10 }, signal);
    const from = Date.UTC(2024, 1, 1);
    const to = Date.UTC(2024, 2, 1) - 1;
    for (const t of out.trends) {
      const mine = posts.filter((p) => p.topicId === t.topicId && p.created >= from && p.created <= to);
      assert.equal(t.postCount, mine.length);
      assert.equal(
        t.totalUpvotes,
        mine.reduce((s, p) => s + p.upvotes, 0),
      );
      assert.equal(
        t.totalComments,
        mine.reduce((s, p) => s + p.comments, 0),
      );
      assert.ok(Math.abs(t.avgSentiment - mine.reduce((s, p) => s + p.sentimentScore, 0) / mine.length) < 1e-9);
      assert.ok(t.topSubforums.length >= 1 && t.topSubforums.length <= 3);
      assert.ok(t.topSubforums.every((s) => s.startsWith(`${t.topicId}-`)));
      assert.ok(t.samplePosts.length >= 3 && t.samplePosts.length <= 5);
      const eng = t.samplePosts.map((p) => p.upvotes + 2 * p.comments);
      assert.deepEqual(
        eng,
        [...eng].sort((a, b) => b - a),
      );
      assert.equal(eng[0], Math.max(...mine.map((p) => p.upvotes + 2 * p.comments)));
      assert.ok(t.trendScore > 0 && t.trendScore < 100);
      assert.ok(t.growthRate > -1 && Number.isFinite(t.growthRate));
      assert.equal(t.label, labelled.topics.find((x) => x.id === t.topicId)!.label);
    }
  });

  it("answers a one-day window with that day's posts", async () => {
    const out = await core().list({ startDate: "2024-02-14", endDate: "2024-02-14", limit: 10 }, signal);
    assert.deepEqual([out.range.startDay, out.range.endDay, out.range.days], ["2024-02-14", "2024-02-14", 1]);
    const dayPosts = posts.filter((p) => new Date(p.created).toISOString().startsWith("2024-02-14"));
    const perTopic = new Map<string, number>();
    for (const p of dayPosts) perTopic.set(p.topicId, (perTopic.get(p.topicId) ?? 0) + 1);
    // Every topic with enough posts that day is listed with all of them; smaller ones are not ranked.
    const ranked = [...perTopic].filter(([, n]) => n >= MIN_TREND_POSTS);
    assert.ok(ranked.length < perTopic.size, "the fixture has a topic below the minimum that day");
    assert.deepEqual(out.trends.map((t) => [t.topicId, t.postCount]).sort(), ranked.sort());
    assert.ok(out.trends.find((t) => t.topicId === "crypto")!.postCount >= 2);
  });

  it("returns no trends for a window before any data, echoing the window", async () => {
    const out = await core().list({ startDate: "2023-01-01", endDate: "2023-01-31", limit: 10 }, signal);
    assert.deepEqual(out.trends, []);
    assert.deepEqual([out.range.startDay, out.range.endDay], ["2023-01-01", "2023-01-31"]);
  });

  it("on an empty index returns nothing for the 30 days ending today", async () => {
    const out = await core(new TrendOracle([]), () => Date.UTC(2026, 10, 22, 13)).list(
      { startDate: "", endDate: "", limit: undefined },
      signal,
    );
    assert.deepEqual(out.trends, []);
    assert.deepEqual([out.range.startDay, out.range.endDay], ["2026-10-24", "2026-11-22"]);
  });

  it("refuses with TOPICS_NOT_BUILT, not an empty success, while no topic model exists", async () => {
    const bare = new TrendsCore({
      store: new TrendOracle(posts.map((p) => ({ ...p }))),
      topics: async () => undefined,
    });
    await assert.rejects(
      bare.list({ startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 }, signal),
      (err: unknown) => {
        return (
          err instanceof AppError && err.kind === "TOPICS_NOT_BUILT" && /`threadsight topics rebuild`/.test(err.message)
        );
      },
    );
  });

  it("gives a topic from nothing a finite growth rate", async () => {
    const late = posts.map((p) => ({
      ...p,
      topicId: p.topicId === "seo" && p.created < Date.UTC(2024, 2, 1) ? "" : p.topicId,
    }));
    const out = await core(new TrendOracle(late)).list(
      { startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 },
      signal,
    );
    const seo = out.trends.find((t) => t.topicId === "seo")!;
    assert.equal(seo.growthRate, (seo.postCount + 5) / 5 - 1);
    assert.equal(out.trends[0]!.topicId, "seo");
  });

  it("applies the limit and its bounds", async () => {
    const out = await core().list({ startDate: "2024-03-01", endDate: "2024-03-31", limit: 1 }, signal);
    assert.equal(out.trends.length, 1);
    await assert.rejects(
      core().list({ startDate: "", endDate: "", limit: 0 }, signal),
      (e: unknown) => e instanceof AppError && /limit must be between 1 and 100/.test(e.message),
    );
    await assert.rejects(core().list({ startDate: "2024-03-31", endDate: "2024-03-01", limit: 5 }, signal), AppError);
  });

  it("labels a topic the model does not know (yet) by its id", async () => {
    const store = new TrendOracle(posts.map((p) => ({ ...p })));
    // A model that predates these topics (they were assigned after its build) knows none of their ids.
    const older = { ...labelled, topics: [] };
    const out = await new TrendsCore({ store, topics: async () => older }).list(
      { startDate: "2024-03-01", endDate: "2024-03-31", limit: 3 },
      signal,
    );
    assert.deepEqual(out.trends.map((t) => t.label).sort(), ["crypto", "python", "seo"]);
  });
});

describe("rank: the baseline is the windows the store has data in", () => {
  const stat = (topicId: string, count: number) => ({
    topicId,
    count,
    upvotes: 10 * count,
    comments: count,
    meanSentiment: 0,
    topSubforums: [],
  });
  const stats = [stat("big", 84), stat("small", 42), stat("median", 60)];
  const scoreOf = (ranked: ReturnType<typeof rank>, id: string) => ranked.find((r) => r.stats.topicId === id)!.score;

  it("gives no acceleration in the first window of the data, so volume alone ranks", () => {
    // No topic has a post in any earlier window: the data begins with this window.
    const ranked = rank(stats, new Map());
    assert.deepEqual(
      ranked.map((r) => r.stats.topicId),
      ["big", "median", "small"],
    );
    // z = 0: the score is the volume and engagement terms alone (both topics' engagement per post is the same).
    const volumeOnly = (n: number) =>
      trendScore({ count: n, engagementPerPost: 12, z: 0, typicalCount: 60, typicalEngagement: 12 });
    assert.ok(Math.abs(scoreOf(ranked, "big") - volumeOnly(84)) < 1e-9);
    assert.ok(Math.abs(scoreOf(ranked, "small") - volumeOnly(42)) < 1e-9);
    assert.ok(
      scoreOf(ranked, "big") < 90,
      `a topic is not surging merely because the data starts here: ${scoreOf(ranked, "big")}`,
    );
  });

  it("weighs the acceleration of a short history down: the data's second window is no surge for every topic", () => {
    // The data began one window ago; each topic has about doubled since (Hacker News 2015-10 against
    // a 2015-09 that began on the 6th). One earlier count has no spread, so z sits at the clip.
    const second = new Map([
      ["big", [0, 0, 0, 0, 0, 0, 0, 42]],
      ["small", [0, 0, 0, 0, 0, 0, 0, 20]],
      ["median", [0, 0, 0, 0, 0, 0, 0, 31]],
    ]);
    const ranked = rank(stats, second);
    const expected = trendScore({
      count: 84,
      engagementPerPost: 12,
      z: acceleration(84, [42]),
      typicalCount: 60,
      typicalEngagement: 12,
    });
    assert.ok(
      Math.abs(scoreOf(ranked, "big") - expected) < 1e-9,
      `score ${scoreOf(ranked, "big")}, expected ${expected}`,
    );
    assert.ok(scoreOf(ranked, "big") < 70, `one earlier window does not make a surge: ${scoreOf(ranked, "big")}`);
  });

  it("leaves windows with no posts at all (a gap in the data) out of a topic's history", () => {
    // Oldest first; windows 0-3 and 6 have no posts of any topic.
    const withGap = new Map([
      ["big", [0, 0, 0, 0, 80, 84, 0, 82]],
      ["small", [0, 0, 0, 0, 5, 6, 0, 4]],
    ]);
    const ranked = rank(stats, withGap);
    // big: history [80, 84, 82] -> median 82, no acceleration to speak of; small: [5, 6, 4] -> a surge.
    // Three windows of history: the acceleration counts three quarters of the robust z.
    const expected = (n: number, history: number[]) =>
      trendScore({
        count: n,
        engagementPerPost: 12,
        z: acceleration(n, history),
        typicalCount: 60,
        typicalEngagement: 12,
      });
    assert.ok(Math.abs(scoreOf(ranked, "big") - expected(84, [80, 84, 82])) < 1e-9);
    assert.ok(Math.abs(scoreOf(ranked, "small") - expected(42, [5, 6, 4])) < 1e-9);
    // A topic absent from every known window came from nothing: zeros in those windows.
    assert.ok(Math.abs(scoreOf(ranked, "median") - expected(60, [0, 0, 0])) < 1e-9);
  });
});
