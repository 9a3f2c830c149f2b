/** The delivery retry schedule's steps and jitter bounds. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_RETRY, retryDelay, retryStep } from "../../src/monitors/retry-schedule.js";

test("steps double from the base up to the cap; the delay lies in [step/2, step]", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 9, 10, 30].map((a) => retryStep(a, DEFAULT_RETRY)),
    [10_000, 20_000, 40_000, 80_000, 2_560_000, 3_600_000, 3_600_000],
  );
  assert.equal(
    retryDelay(3, DEFAULT_RETRY, () => 0),
    20_000,
  );
  assert.equal(
    retryDelay(3, DEFAULT_RETRY, () => 0.999999),
    40_000,
  );
});
