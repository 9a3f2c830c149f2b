/**
 * The rollup arithmetic (src/topics/rollup.ts) on its own: re-writing a post nets to nothing,
 * a post that moves topic or day moves its contribution, cells fold into the same stats the
 * oracle computes from posts, and only whole-day windows and buckets are answered from cells.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RollupCell, RollupPost } from "../../src/topics/rollup.js";
import {
  bucketsAligned,
  bucketsFromCells,
  cellKey,
  dayAligned,
  mergeCell,
  rollupAll,
  rollupDelta,
  statsFromCells,
  TOTAL_DAY,
  TOTAL_TOPIC,
} from "../../src/topics/rollup.js";
import { trendCorpus } from "./fixture.js";
import { TrendOracle } from "./trend-oracle.js";

const DAY = 86_400_000;
const post = (over: Partial<RollupPost> = {}): RollupPost => ({
  id: "a",
  topicId: "t1",
  created: Date.UTC(2024, 0, 5, 13),
  upvotes: 10,
  comments: 2,
  sentimentScore: 0.5,
  subforum: "s1",
  ...over,
});

function applyAll(base: Map<string, RollupCell>, delta: Map<string, RollupCell>): Map<string, RollupCell> {
  const out = new Map(base);
  for (const [k, d] of delta) out.set(k, mergeCell(out.get(k), d));
  return out;
}

describe("rollups", () => {
  it("a re-written, unchanged post changes no cell", () => {
    const delta = rollupDelta([post()], [post()]);
    for (const c of delta.values()) {
      assert.equal(c.count, 0);
      assert.equal(c.upvotes, 0);
      assert.equal(c.sentimentSum, 0);
      assert.deepEqual(c.subforums, c.topicId === TOTAL_TOPIC ? {} : { s1: 0 });
    }
    const cells = applyAll(rollupAll([post()]), delta);
    assert.deepEqual(
      cells.get(cellKey("t1", Date.UTC(2024, 0, 5)))?.subforums,
      { s1: 1 },
      "zeroed subforums are dropped on merge",
    );
  });

  it("a post that moves topic and day leaves its old cell and joins the new one", () => {
    const moved = post({ topicId: "t2", created: Date.UTC(2024, 0, 7, 1), upvotes: 3, subforum: "s2" });
    const cells = applyAll(rollupAll([post(), post({ id: "b" })]), rollupDelta([post()], [moved]));
    assert.equal(cells.get(cellKey("t1", Date.UTC(2024, 0, 5)))?.count, 1);
    assert.deepEqual(cells.get(cellKey("t2", Date.UTC(2024, 0, 7)))?.subforums, { s2: 1 });
    assert.equal(cells.get(cellKey(TOTAL_TOPIC, TOTAL_DAY))?.count, 2, "the TOTAL cell counts posts, not writes");
  });

  it("posts without a topic count in TOTAL only", () => {
    const cells = rollupAll([post({ topicId: "" }), post({ id: "b" })]);
    assert.equal(cells.get(cellKey(TOTAL_TOPIC, TOTAL_DAY))?.count, 2);
    assert.deepEqual(
      statsFromCells(cells.values()).map((s) => s.count),
      [1],
    );
  });

  it("folds cells into the oracle's per-topic stats and baselines", async () => {
    const posts = trendCorpus(true).posts;
    const cells = [...rollupAll(posts).values()];
    const oracle = new TrendOracle(posts);
    const window = { from: Date.UTC(2024, 1, 1), to: Date.UTC(2024, 2, 1) - 1 };
    const inWindow = cells.filter((c) => c.day >= window.from && c.day <= window.to);
    const round = <T>(x: T): T =>
      JSON.parse(JSON.stringify(x, (_k, v: unknown) => (typeof v === "number" ? Number(v.toPrecision(9)) : v))) as T;
    const byId = <T extends { topicId: string }>(xs: T[]) => [...xs].sort((a, b) => a.topicId.localeCompare(b.topicId));
    assert.deepEqual(round(byId(statsFromCells(inWindow))), round(byId(await oracle.aggregateByTopic(window))));
    const range = { from: Date.UTC(2023, 11, 4), to: Date.UTC(2024, 2, 31) - 1 };
    assert.deepEqual(
      Object.fromEntries(bucketsFromCells(cells, range, 7 * DAY)),
      Object.fromEntries(await oracle.countsByTopicAndBucket(range, 7 * DAY)),
    );
  });

  it("answers only whole-day windows and whole-day buckets from cells", () => {
    assert.equal(dayAligned({ from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 2) - 1 }), true);
    assert.equal(dayAligned({ from: Date.UTC(2024, 0, 1) + 1, to: Date.UTC(2024, 0, 2) - 1 }), false);
    assert.equal(dayAligned({ from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 2) }), false);
    assert.equal(bucketsAligned({ from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 15) - 1 }, 7 * DAY), true);
    assert.equal(bucketsAligned({ from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 15) - 1 }, 7 * DAY + 1), false);
  });
});
