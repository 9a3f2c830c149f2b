import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { connect } from "@lancedb/lancedb";
import { idsWhere, lanceWhere, sqlString } from "../../src/index/lancedb/filter.js";

describe("lanceWhere", () => {
  it("is undefined when nothing is restricted (an empty subforum list restricts nothing)", () => {
    assert.equal(lanceWhere(undefined), undefined);
    assert.equal(lanceWhere({}), undefined);
    assert.equal(lanceWhere({ subforums: [] }), undefined);
  });

  it("combines every restriction with AND and inclusive bounds", () => {
    assert.equal(
      lanceWhere({ subforums: ["a", "b"], createdFrom: 10, createdTo: 20, minLeadScore: 50 }),
      "(subforum IN ('a', 'b')) AND (created >= 10) AND (created <= 20) AND (lead_type <> '' AND lead_score >= 50)",
    );
  });

  it("rounds fractional bounds inward to whole milliseconds", () => {
    assert.equal(lanceWhere({ createdFrom: 10.2, createdTo: 19.8 }), "(created >= 11) AND (created <= 19)");
  });

  it("rejects non-finite numbers and NUL characters", () => {
    assert.throws(() => lanceWhere({ createdFrom: Number.POSITIVE_INFINITY }), RangeError);
    assert.throws(() => lanceWhere({ minLeadScore: Number.NaN }), RangeError);
    assert.throws(() => sqlString("a\u0000b"), RangeError);
  });

  it("quotes strings by doubling single quotes", () => {
    assert.equal(sqlString("it's"), "'it''s'");
    assert.equal(idsWhere(["a'b", "c"]), "id IN ('a''b', 'c')");
  });
});

describe("lanceWhere against a real table", () => {
  it("matches hostile subforum names exactly and nothing else", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-filter-"));
    const names = [
      "plain",
      "it's",
      "x' OR '1'='1",
      "a\\' OR 1=1 --",
      'q") OR (1=1',
      "%",
      "_",
      "semi; DROP TABLE posts",
    ];
    try {
      const db = await connect(dir);
      const table = await db.createTable(
        "t",
        names.map((subforum, i) => ({ id: `p${i}`, subforum })),
      );
      for (const name of names) {
        const rows = await table
          .query()
          .where(lanceWhere({ subforums: [name] })!)
          .select(["subforum"])
          .toArray();
        assert.deepEqual(
          rows.map((r: { subforum: string }) => r.subforum),
          [name],
          JSON.stringify(name),
        );
      }
      assert.equal(await table.countRows(), names.length);
      table.close();
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
