import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backoffMs, retryAfterMs } from "../../src/sources/http/retry-after.js";

describe("Retry-After and backoff", () => {
  it("reads seconds and HTTP dates, and ignores what it cannot read", () => {
    const now = Date.UTC(2024, 0, 1, 12, 0, 0);
    assert.equal(retryAfterMs("120", now), 120_000);
    assert.equal(retryAfterMs("Mon, 01 Jan 2024 12:00:30 GMT", now), 30_000);
    assert.equal(retryAfterMs("Mon, 01 Jan 2024 11:00:00 GMT", now), 0);
    assert.equal(retryAfterMs("soon", now), undefined);
    assert.equal(retryAfterMs(null, now), undefined);
  });
  it("draws a full-jitter wait below the doubling step, capped", () => {
    assert.equal(
      backoffMs(0, 500, 30_000, () => 1),
      500,
    );
    assert.equal(
      backoffMs(3, 500, 30_000, () => 1),
      4000,
    );
    assert.equal(
      backoffMs(10, 500, 30_000, () => 1),
      30_000,
    );
    assert.equal(
      backoffMs(3, 500, 30_000, () => 0),
      0,
    );
  });
});
