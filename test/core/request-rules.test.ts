import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { FilterParams } from "../../src/core/request-rules.js";
import {
  parseDay,
  requireText,
  resolveFilter,
  resolveLimit,
  resolveMinScore,
  resolveSearchRange,
  resolveSort,
  resolveSubforums,
  resolveTrendsRange,
} from "../../src/core/request-rules.js";
import { AppError } from "../../src/errors/app-error.js";

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
    rejects(
      () => parseDay("start_date", "2024-02-30"),
      "INVALID_DATE",
      /start_date is not a real calendar date: "2024-02-30"/,
    );
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
    rejects(
      () => resolveSearchRange("2016-01-02", "2016-01-01"),
      "INVALID_DATE",
      /start_date must not be after end_date/,
    );
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

describe("filter and sort rules", () => {
  const empty = {
    startDate: "",
    endDate: "",
    sources: [],
    subforums: [],
    excludeSubforums: [],
    authors: [],
    sentiments: [],
    leadTypes: [],
  };
  const f = (over: Partial<FilterParams>): FilterParams => ({ ...empty, ...over });

  test("an absent or empty filter restricts nothing; set fields become index filters", () => {
    assert.deepEqual(resolveFilter(undefined), {});
    assert.deepEqual(resolveFilter(f({})), {});
    assert.deepEqual(
      resolveFilter(
        f({
          sources: ["reddit", "reddit"],
          authors: [" bob "],
          minUpvotes: -3,
          minComments: 0,
          sentiments: ["negative"],
          leadTypes: ["comparison"],
          excludeSubforums: ["x"],
          startDate: "2024-01-01",
        }),
      ),
      {
        sources: ["reddit"],
        authors: ["bob"],
        minUpvotes: -3,
        minComments: 0,
        sentiments: ["negative"],
        leadTypes: ["comparison"],
        excludeSubforums: ["x"],
        createdFrom: Date.UTC(2024, 0, 1),
      },
    );
    assert.deepEqual(resolveFilter(f({ subforums: ["a"] }), { subforums: [] }), { subforums: ["a"] });
    assert.deepEqual(resolveFilter(undefined, { subforums: ["b"], startDate: "", endDate: "2024-01-31" }), {
      subforums: ["b"],
      createdTo: Date.UTC(2024, 1, 1) - 1,
    });
  });

  test("each bad value is refused naming its field", () => {
    rejects(
      () => resolveFilter(f({ sentiments: ["happy"] })),
      "INVALID_ARGUMENT",
      /^filter.sentiments\[0\] must be one of "positive", "neutral", "negative", got "happy"$/,
    );
    rejects(
      () => resolveFilter(f({ leadTypes: ["comparison", "lead"] })),
      "INVALID_ARGUMENT",
      /^filter.lead_types\[1\] must be one of/,
    );
    rejects(
      () => resolveFilter(f({ sources: ["Reddit"] })),
      "INVALID_ARGUMENT",
      /^filter.sources\[0\] must be a source name/,
    );
    rejects(() => resolveFilter(f({ sources: ["x' OR '1'='1"] })), "INVALID_ARGUMENT", /^filter.sources\[0\]/);
    rejects(
      () => resolveFilter(f({ authors: Array.from({ length: 21 }, (_, i) => `a${i}`) })),
      "OUT_OF_RANGE",
      /^filter.authors must list at most 20 values, got 21$/,
    );
    rejects(
      () => resolveFilter(f({ authors: [" "] })),
      "INVALID_ARGUMENT",
      /^filter.authors\[0\] must be 1..100 characters$/,
    );
    rejects(
      () => resolveFilter(f({ excludeSubforums: ["a\u0000"] })),
      "INVALID_ARGUMENT",
      /^filter.exclude_subforums\[0\] must not contain control characters$/,
    );
    rejects(
      () => resolveFilter(f({ minUpvotes: 1_000_000_001 })),
      "OUT_OF_RANGE",
      /^filter.min_upvotes must be between/,
    );
    rejects(() => resolveFilter(f({ minComments: -1 })), "OUT_OF_RANGE", /^filter.min_comments must be between 0 and/);
    rejects(
      () => resolveFilter(f({ startDate: "2024-02-02", endDate: "2024-02-01" })),
      "INVALID_DATE",
      /^filter.start_date must not be after filter.end_date/,
    );
    rejects(
      () => resolveFilter(f({ endDate: "2024-02-30" })),
      "INVALID_DATE",
      /^filter.end_date is not a real calendar date/,
    );
    rejects(
      () => resolveFilter(f({ subforums: ["a"], excludeSubforums: ["a"] })),
      "INVALID_ARGUMENT",
      /^filter.exclude_subforums lists "a"/,
    );
    rejects(
      () => resolveFilter(f({ subforums: ["a"] }), { subforums: ["b"] }),
      "INVALID_ARGUMENT",
      /^filter.subforums and subforums must not both be given/,
    );
    rejects(
      () => resolveFilter(f({ startDate: "2024-01-01" }), { startDate: "2024-01-02" }),
      "INVALID_ARGUMENT",
      /^filter.start_date and start_date/,
    );
  });

  test("sort is relevance by default and one of the documented orders", () => {
    assert.equal(resolveSort(""), "relevance");
    for (const o of ["relevance", "newest", "oldest", "top", "most_commented"]) assert.equal(resolveSort(o), o);
    rejects(
      () => resolveSort("date"),
      "INVALID_ARGUMENT",
      /^sort must be one of "relevance", "newest", "oldest", "top", "most_commented", got "date"$/,
    );
  });
});
