import assert from "node:assert/strict";
import { test } from "node:test";
import { npmiByTopic } from "./coherence.js";

test("NPMI is 1 for words always together, -1 for words never together, 0 for independent ones", () => {
  const docs = [new Set(["a", "b", "x"]), new Set(["a", "b"]), new Set(["c", "y"]), new Set(["c", "x", "y"])];
  const [together, apart, independent, single] = npmiByTopic([["a", "b"], ["a", "c"], ["x", "y"], ["a"]], docs);
  assert.ok(Math.abs(together! - 1) < 1e-9, String(together));
  assert.equal(apart, -1);
  // x in 2 of 4, y in 2 of 4, both in 1 of 4: p(x,y) = p(x) p(y).
  assert.ok(Math.abs(independent!) < 1e-9, String(independent));
  assert.ok(Number.isNaN(single));
});
