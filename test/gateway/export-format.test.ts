/** Export format negotiation and the CSV writer, the latter checked by a real CSV parser (csv-parse). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import { CSV_COLUMNS, csvField, negotiateFormat, WRITERS } from "../../src/gateway/export-format.js";

describe("export formats", () => {
  test("Accept picks the format by q, the first listed on a tie; none acceptable is undefined", () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, "ndjson"],
      ["", "ndjson"],
      ["*/*", "ndjson"],
      ["application/x-ndjson", "ndjson"],
      ["application/ndjson", "ndjson"],
      ["text/csv", "csv"],
      ["TEXT/CSV; charset=utf-8", "csv"],
      ["text/*", "csv"],
      ["text/csv, application/x-ndjson", "csv"],
      ["application/x-ndjson;q=0.4, text/csv;q=0.9", "csv"],
      ["application/json, text/csv;q=0.5", "csv"],
      ["application/json", undefined],
      ["text/html, image/png", undefined],
      ["text/csv;q=0", undefined],
      ["text/csv;q=abc", undefined],
    ];
    for (const [accept, want] of cases) assert.equal(negotiateFormat(accept), want, String(accept));
  });

  test("CSV fields with quotes, commas and line breaks round-trip through a CSV parser", () => {
    const nasty = ['say "hi"', "a,b", "line\nbreak", "cr\r\nlf", "=1+1", "plain", "", "x' OR '1'='1"];
    const post = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, nasty[i % nasty.length]]));
    const text = WRITERS.csv.head() + WRITERS.csv.post(post) + WRITERS.csv.end(1);
    const rows = parse(text, { relax_column_count: true }) as string[][];
    assert.deepEqual(rows[0], [...CSV_COLUMNS]);
    assert.deepEqual(
      rows[1],
      CSV_COLUMNS.map((c) => String(post[c])),
    );
    assert.deepEqual(rows[2], ["#end", "1"]);
    assert.equal(csvField("plain"), "plain");
    assert.equal(csvField('q"'), '"q"""');
  });

  test("NDJSON lines are one JSON value each, the stop line carrying the count", () => {
    const line = WRITERS.ndjson.stop(
      { code: "resource_exhausted", reason: "QUOTA_EXCEEDED", message: "m\nn", request_id: "r" },
      3000,
    );
    assert.equal(line.split("\n").length, 2);
    assert.deepEqual(JSON.parse(line), {
      error: { code: "resource_exhausted", reason: "QUOTA_EXCEEDED", message: "m\nn", request_id: "r", exported: 3000 },
    });
  });
});
