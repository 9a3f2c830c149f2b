/**
 * LanceDB filters are SQL text, so every value put into one must be a quoted literal. Two
 * checks: hostile strings (SQL, DataFusion and Weaviate syntax, backslashes, quotes, RTL and
 * zero-width characters) used as filter values on a real table match exactly themselves; and
 * every interpolation into a filter string in src/index/lancedb/ goes through sqlString /
 * sqlNumber or a builder made of them, so a new filter cannot quietly skip the escaping.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { connect } from "@lancedb/lancedb";
import { idsWhere, lanceWhere, sqlNumber, sqlString } from "../../src/index/lancedb/filter.js";

const HOSTILE = [
  "'",
  "''",
  "' OR 1=1 --",
  "') OR ('1'='1",
  '") OR ("',
  "created > 0 OR 1=1",
  "`id`",
  "x` OR `1`=`1",
  "\\' OR 1=1 --",
  "\\",
  '{path:["id"], operator: NotEqual}',
  "}} { Get { Post { id } } }",
  "\u202Eevil\u202C",
  "zero\u200Bwidth",
  "%",
  "_",
  "a;DROP TABLE posts",
  "/* comment */",
];

describe("LanceDB filter escaping", () => {
  it("quotes by doubling single quotes and refuses NUL and non-finite numbers", () => {
    assert.equal(sqlString("' OR 1=1 --"), "''' OR 1=1 --'");
    assert.equal(sqlString("`id`"), "'`id`'");
    assert.throws(() => sqlString("a\u0000"), /NUL/);
    assert.throws(() => sqlNumber(Number.NaN), /finite/);
    assert.throws(() => sqlNumber(Number.POSITIVE_INFINITY), /finite/);
    assert.equal(sqlNumber(-0.5), "-0.5");
  });

  it("hostile values match exactly themselves in subforum and id filters on a real table", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-escape-"));
    try {
      const db = await connect(dir);
      const rows = HOSTILE.map((v, i) => ({ id: v, subforum: v, created: i }));
      const table = await db.createTable("t", [...rows, { id: "plain", subforum: "plain", created: 100 }]);
      for (const value of HOSTILE) {
        const bySubforum = await table
          .query()
          .where(lanceWhere({ subforums: [value], createdFrom: 0, createdTo: 50 })!)
          .select(["subforum"])
          .toArray();
        assert.deepEqual(
          bySubforum.map((r: { subforum: string }) => r.subforum),
          [value],
          JSON.stringify(value),
        );
        const byId = await table
          .query()
          .where(idsWhere([value]))
          .select(["id"])
          .toArray();
        assert.deepEqual(
          byId.map((r: { id: string }) => r.id),
          [value],
          JSON.stringify(value),
        );
      }
      table.close();
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every value interpolated into a LanceDB filter in src/index/lancedb is escaped", () => {
    const dir = new URL("../../src/index/lancedb/", import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "filter.ts");
    assert.ok(files.length > 0);
    // Interpolations that are known-safe: the escaping functions, builders made of them, and
    // fixed fragments composed in the same files.
    const safe =
      /^(sqlString|sqlNumber|idsWhere|lanceWhere|windowWhere)\(|^(where|p|[A-Za-z!]+\.map\(sqlString\)\.join\(", "\))$/;
    for (const file of files) {
      const code = readFileSync(new URL(file, dir), "utf8");
      for (const m of code.matchAll(/`([^`]*)`/g)) {
        const template = m[1]!;
        // Only templates that look like filters: a comparison or SQL keyword next to an interpolation.
        if (!/\$\{/.test(template) || !/(>=|<=|<>|=|\bIN\b|\bAND\b|\bOR\b)/.test(template)) continue;
        if (/must|configured|index in|got /.test(template)) continue; // error messages
        for (const i of template.matchAll(/\$\{([^}]*(?:\([^)]*\))?[^}]*)\}/g)) {
          const expr = i[1]!.trim();
          assert.match(expr, safe, `${file}: \`${template}\` interpolates ${expr} without sqlString/sqlNumber`);
        }
      }
    }
  });
});
