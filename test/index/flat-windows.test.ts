/** The created ranges AggregatePosts with a query searches in on Weaviate (flat-windows.ts). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CreatedRange } from "../../src/index/weaviate/flat-windows.js";
import { flatWindows, inLanes, piecesOf } from "../../src/index/weaviate/flat-windows.js";

/** A count over fixed timestamps, recording each range asked. */
function counter(created: readonly number[]) {
  const asked: CreatedRange[] = [];
  const count = async (r: CreatedRange) => {
    asked.push(r);
    return created.filter((c) => c >= r.from && c < r.to).length;
  };
  return { asked, count };
}

describe("flat-search windows", () => {
  it("covers every post once, in ascending ranges each under the cutoff", async () => {
    // Clustered and sparse: 300 posts in one day, 40 spread over a year.
    const created = [
      ...Array.from({ length: 300 }, (_, i) => 1_000_000 + i * 97),
      ...Array.from({ length: 40 }, (_, i) => 50_000_000 + i * 800_000_000),
    ];
    const { count } = counter(created);
    const span = { from: 0, to: Math.max(...created) + 1 };
    const windows = await flatWindows(span, 25, count);
    for (const w of windows) {
      const n = await count(w);
      assert.ok(n > 0 && n < 25 && n === w.count, `${JSON.stringify(w)} holds ${n}`);
    }
    for (let i = 1; i < windows.length; i++) assert.ok(windows[i - 1]!.to <= windows[i]!.from, "ascending, disjoint");
    const covered = created.filter((c) => windows.some((w) => c >= w.from && c < w.to));
    assert.equal(covered.length, created.length);
  });

  it("is the whole span when it already holds fewer than the cutoff, and nothing when it holds none", async () => {
    const { count, asked } = counter([5, 6, 7]);
    assert.deepEqual(await flatWindows({ from: 0, to: 10 }, 4, count), [{ from: 0, to: 10, count: 3 }]);
    assert.equal(asked.length, 1);
    assert.deepEqual(await flatWindows({ from: 0, to: 10 }, 3, counter([]).count), []);
  });

  it("refuses when the cutoff or more posts share one millisecond", async () => {
    const { count } = counter([4, 4, 4, 9]);
    await assert.rejects(flatWindows({ from: 0, to: 10 }, 3, count), /3 posts share created 4/);
  });

  it("cuts a range into its parts inside each window", () => {
    const windows = [
      { from: 0, to: 10, count: 3 },
      { from: 10, to: 25, count: 7 },
      { from: 40, to: 50, count: 2 },
    ];
    assert.deepEqual(piecesOf({ from: 5, to: 45 }, windows), [
      { from: 5, to: 10, count: 3 },
      { from: 10, to: 25, count: 7 },
      { from: 40, to: 45, count: 2 },
    ]);
    assert.deepEqual(piecesOf({ from: 25, to: 40 }, windows), []);
  });

  it("runs work in lanes, keeping the items' order", async () => {
    let inFlight = 0;
    let most = 0;
    const out = await inLanes([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    assert.deepEqual(out, [50, 10, 40, 20, 30]);
    assert.equal(most, 2);
  });
});
