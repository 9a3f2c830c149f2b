import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeNearDuplicates } from "../../src/topics/merge.js";
import { dot, unit } from "../../src/topics/vectors.js";

test("clusters closer than the threshold merge into their size-weighted mean; others stay", () => {
  const a = unit([1, 0, 0]);
  const a2 = unit([1, 0.1, 0]);
  const b = unit([0, 1, 0]);
  const { centroids, mapping } = mergeNearDuplicates([a, b, a2], [30, 10, 10], 0.95);
  assert.deepEqual(mapping, [0, 1, 0]);
  assert.equal(centroids.length, 2);
  // Weighted 3:1 towards a.
  const expected = unit([30 * a[0]! + 10 * a2[0]!, 30 * a[1]! + 10 * a2[1]!, 0]);
  assert.ok(dot(centroids[0]!, expected) > 0.99999);
  assert.ok(dot(centroids[1]!, b) > 0.99999);
});

test("a chain of close clusters ends as one; a threshold above 1 merges nothing", () => {
  const chain = [unit([1, 0]), unit([1, 0.2]), unit([1, 0.4]), unit([0, 1])];
  assert.deepEqual(mergeNearDuplicates(chain, [1, 1, 1, 1], 0.95).mapping, [0, 0, 0, 1]);
  assert.deepEqual(mergeNearDuplicates(chain, [1, 1, 1, 1], 2).mapping, [0, 1, 2, 3]);
  assert.deepEqual(mergeNearDuplicates([], [], 0.9), { centroids: [], mapping: [] });
});
