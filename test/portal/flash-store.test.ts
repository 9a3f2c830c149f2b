/** The post/redirect/get flash: single use, bound to one session token, expiring, bounded. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FlashStore } from "../../src/portal/web/flash-store.js";

describe("FlashStore", () => {
  it("gives a value back once, to the session that stored it", () => {
    const store = new FlashStore<string>();
    store.put("session-a", "secret");
    assert.equal(store.take("session-b"), undefined, "another session reads nothing");
    assert.equal(store.take("session-a"), "secret");
    assert.equal(store.take("session-a"), undefined, "single use");
  });

  it("expires after its lifetime", () => {
    let now = 1_000;
    const store = new FlashStore<string>(5_000, 10, () => now);
    store.put("s", "v");
    now += 5_000;
    assert.equal(store.take("s"), undefined);
    assert.equal(store.size, 0, "an expired entry is dropped when read");
  });

  it("keeps one value per session (the newest) and evicts the oldest past its bound", () => {
    const store = new FlashStore<number>(60_000, 2);
    store.put("s", 1);
    store.put("s", 2);
    assert.equal(store.size, 1);
    store.put("t", 3);
    store.put("u", 4);
    assert.equal(store.size, 2);
    assert.equal(store.take("s"), undefined, "the oldest went first");
    assert.equal(store.take("t"), 3);
    assert.equal(store.take("u"), 4);
  });
});
