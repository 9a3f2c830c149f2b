import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KEYWORD_WINDOW, keywordDepth, stablePage } from "../../src/index/paging.js";

describe("stablePage", () => {
  it("orders by score, breaks ties by id, and cuts the page", () => {
    const items = [
      { id: "c", score: 1 },
      { id: "a", score: 1 },
      { id: "b", score: 2 },
      { id: "d", score: 0.5 },
    ];
    const idOf = (x: { id: string }) => x.id;
    assert.deepEqual(stablePage([...items], idOf, 0, 2).map(idOf), ["b", "a"]);
    assert.deepEqual(stablePage([...items].reverse(), idOf, 2, 2).map(idOf), ["c", "d"]);
    assert.deepEqual(stablePage([...items], idOf, 4, 2), []);
  });
});

describe("keywordDepth", () => {
  it("reaches at least half a window past the page, in whole windows", () => {
    assert.equal(keywordDepth(0, 10), KEYWORD_WINDOW);
    assert.equal(keywordDepth(20, 10), 2 * KEYWORD_WINDOW);
    for (let offset = 0; offset < 500; offset += 7) {
      const d = keywordDepth(offset, 10);
      assert.ok(d - (offset + 10) >= KEYWORD_WINDOW / 2 && d % KEYWORD_WINDOW === 0);
    }
  });
});
