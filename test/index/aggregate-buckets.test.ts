/** Bucket arithmetic of AggregatePosts histograms: UTC days, ISO weeks from Monday, calendar months. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bucketSpan, bucketStart, bucketStarts, TooManyBucketsError } from "../../src/index/aggregate-query.js";

const at = (iso: string): number => Date.parse(iso);
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

describe("histogram buckets", () => {
  it("puts a moment in its UTC day, its ISO week (Monday) and its month", () => {
    assert.equal(day(bucketStart(at("2024-03-03T23:59:59.999Z"), "day")), "2024-03-03");
    // 2024-03-03 is a Sunday: its ISO week began on Monday 2024-02-26.
    assert.equal(day(bucketStart(at("2024-03-03T23:59:59.999Z"), "week")), "2024-02-26");
    assert.equal(day(bucketStart(at("2024-03-04T00:00:00Z"), "week")), "2024-03-04");
    // 2021-01-01 (a Friday) belongs to the week of Monday 2020-12-28.
    assert.equal(day(bucketStart(at("2021-01-01T12:00:00Z"), "week")), "2020-12-28");
    assert.equal(day(bucketStart(at("2024-02-29T08:00:00Z"), "month")), "2024-02-01");
  });

  it("counts buckets inclusively and lists their starts, refusing more than the cap", () => {
    assert.equal(bucketSpan(at("2024-01-01"), at("2024-12-31"), "day"), 366);
    assert.equal(bucketSpan(at("2024-01-01"), at("2024-12-31"), "week"), 53);
    assert.equal(bucketSpan(at("2023-11-15"), at("2024-02-01"), "month"), 4);
    assert.equal(bucketSpan(at("2024-02-01"), at("2023-11-15"), "month"), 0);
    assert.deepEqual(bucketStarts(at("2023-11-15"), at("2024-02-01"), "month", 4).map(day), [
      "2023-11-01",
      "2023-12-01",
      "2024-01-01",
      "2024-02-01",
    ]);
    assert.throws(() => bucketStarts(at("2024-01-01"), at("2024-12-31"), "day", 365), TooManyBucketsError);
  });
});
