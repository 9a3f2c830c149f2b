import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AppError } from "../../src/errors/app-error.js";
import { parseDay, requireText, resolveLimit, resolveMinScore, resolveSearchRange, resolveSubforums, resolveTrendsRange } from "../../src/core/request-rules.js";

function rejects(fn: () => unknown, kind: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => err instanceof AppError && err.kind === kind && message.test(err.message));
}

describe("request rules", () => {
  test("limit defaults to 10 and is bounded 1..100", () => {
    assert.equal(resolveLimit(undefined), 10);
    assert.equal(resolveLimit(1), 1);
    assert.equal(resolveLimit(100), 100);
    rejects(() => resolveLimit(0), "OUT_OF_RANGE", /^limit must be between 1 and 100, got 0$/);
    rejects(() => resolveLimit(101), "OUT_OF_RANGE", /got 101/);
  });

  test("min_score defaults to 50 and is bounded 0..100", () => {
    assert.equal(resolveMinScore(undefined), 50);
    assert.equal(resolveMinScore(0), 0);
    rejects(() => resolveMinScore(-1), "OUT_OF_RANGE", /^min_score must be between 0 and 100, got -1$/);
  });

  test("text is trimmed, required and at most 500 characters (counted as code points)", () => {
    assert.equal(requireText("query", "  crm  "), "crm");
    rejects(() => requireText("query", " \n\t"), "MISSING_FIELD", /^query is required/);
    assert.equal(requireText("query", "😀".repeat(500)).length, 1000);
    rejects(() => requireText("query", "😀".repeat(501)), "OUT_OF_RANGE", /got 501/);
  });

  test("days must be real calendar dates", () => {
    assert.equal(parseDay("start_date", "2024-02-29"), Date.UTC(2024, 1, 29));
    rejects(() => parseDay("start_date", "2023-02-29"), "INVALID_DATE", /not a real calendar date/);
    rejects(() => parseDay("start_date", "2024-02-30"), "INVALID_DATE", /start_date is not a real calendar date: "2024-02-30"/);
    rejects(() => parseDay("end_date", "2024-13-01"), "INVALID_DATE", /end_date/);
    rejects(() => parseDay("end_date", "2024-1-01"), "INVALID_DATE", /YYYY-MM-DD/);
    rejects(() => parseDay("end_date", "2024-01-01T00:00:00Z"), "INVALID_DATE", /YYYY-MM-DD/);
    rejects(() => parseDay("end_date", "1969-12-31"), "INVALID_DATE", /between 1970-01-01 and 2100-12-31/);
  });

  test("search ranges are inclusive UTC days and may be open on either side", () => {
    assert.deepEqual(resolveSearchRange("", ""), {});
    assert.deepEqual(resolveSearchRange("2016-01-01", ""), { from: Date.UTC(2016, 0, 1) });
    assert.deepEqual(resolveSearchRange("", "2016-01-31"), { to: Date.UTC(2016, 1, 1) - 1 });
    const one = resolveSearchRange("2016-01-05", "2016-01-05");
    assert.equal(one.to! - one.from! + 1, 86_400_000);
    rejects(() => resolveSearchRange("2016-01-02", "2016-01-01"), "INVALID_DATE", /start_date must not be after end_date/);
    rejects(() => resolveSearchRange("1990-01-01", "2020-01-01"), "OUT_OF_RANGE", /at most 3660 days/);
  });

  test("trends ranges default to 30 days ending at the newest data day", () => {
    const latest = Date.UTC(2016, 8, 30);
    const r = resolveTrendsRange("", "", latest);
    assert.equal(r.endDay, "2016-09-30");
    assert.equal(r.startDay, "2016-09-01");
    assert.equal(r.days, 30);
    const given = resolveTrendsRange("2016-01-01", "2016-01-01", latest);
    assert.equal(given.days, 1);
    rejects(() => resolveTrendsRange("2010-01-01", "2016-01-01", latest), "OUT_OF_RANGE", /at most 731 days/);
  });

  test("subforums are deduplicated and bounded", () => {
    assert.deepEqual(resolveSubforums([" startups", "startups", "SEO"]), ["startups", "SEO"]);
    rejects(() => resolveSubforums(Array.from({ length: 21 }, (_, i) => `s${i}`)), "OUT_OF_RANGE", /at most 20/);
    rejects(() => resolveSubforums(["ok", " "]), "INVALID_ARGUMENT", /subforums\[1\]/);
  });
});
