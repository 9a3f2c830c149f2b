/**
 * The SQLite quota counters prepare each statement once (preparedOnce): RateLimiterSQLite over
 * the caching client must count exactly as over the plain database (same rows, same answers,
 * refusals and give-backs included), while compiling each of its few SQL texts only once.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { RateLimiterRes, RateLimiterSQLite } from "rate-limiter-flexible";
import { COUNTERS_TABLE, preparedOnce } from "../../src/limits/local-stores.js";
import { tempDir } from "./fixtures.js";

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

function openDb(name: string): Database.Database {
  const db = new Database(path.join(dir, name));
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${COUNTERS_TABLE} (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)`,
  );
  return db;
}

function limiter(client: unknown, points: number): RateLimiterSQLite {
  return new RateLimiterSQLite({
    storeClient: client,
    storeType: "better-sqlite3",
    tableName: COUNTERS_TABLE,
    tableCreated: true,
    keyPrefix: "t",
    points,
    duration: 3600,
  });
}

/** One scripted run: consumes past the limit, gives points back, reads; returns every outcome. */
async function script(l: RateLimiterSQLite): Promise<string[]> {
  const seen: string[] = [];
  const outcome = (r: RateLimiterRes | null, kind: string): string =>
    r === null ? `${kind}:none` : `${kind}:${r.consumedPoints}/${r.remainingPoints}/${r.msBeforeNext > 0}`;
  for (let i = 0; i < 7; i++) {
    try {
      seen.push(outcome(await l.consume("a"), "ok"));
    } catch (rej) {
      assert.ok(rej instanceof RateLimiterRes, "over the limit is a RateLimiterRes, not an error");
      seen.push(outcome(rej, "refused"));
    }
  }
  seen.push(outcome(await l.reward("a", 1), "reward"));
  seen.push(outcome(await l.get("a"), "get"));
  seen.push(outcome(await l.consume("b", 1, { customDuration: 10 }), "ok-b"));
  seen.push(outcome(await l.get("nobody"), "get-missing"));
  await l.delete("b");
  seen.push(outcome(await l.get("b"), "get-deleted"));
  return seen;
}

test("counts exactly as over the plain database, preparing each SQL text once", async () => {
  const plainDb = openDb("plain.sqlite");
  const cachedDb = openDb("cached.sqlite");
  const prepared: string[] = [];
  const prepare = cachedDb.prepare.bind(cachedDb);
  cachedDb.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof cachedDb.prepare;

  const expected = await script(limiter(plainDb, 5));
  const actual = await script(limiter(preparedOnce(cachedDb), 5));
  assert.deepEqual(actual, expected);
  assert.ok(expected.includes("refused:6/0/true"), "the script crosses the limit");

  // Upsert, read, delete (the transaction's BEGIN/COMMIT are better-sqlite3's own, cached there).
  assert.equal(new Set(prepared).size, prepared.length, `a SQL text was compiled twice: ${prepared.join(" | ")}`);
  assert.ok(prepared.length <= 3, `${prepared.length} statements compiled for ${expected.length} operations`);
  const rows = (db: Database.Database) => db.prepare(`SELECT key, points FROM ${COUNTERS_TABLE} ORDER BY key`).all();
  assert.deepEqual(rows(cachedDb), rows(plainDb));
  plainDb.close();
  cachedDb.close();
});
