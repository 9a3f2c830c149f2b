/** The usage part of the SQLite store: per-day counters, summed per key or account. */
import type Database from "better-sqlite3";
import { checkDayRange, checkIncrement } from "../usage-args.js";
import type { AccountDayUsage, UsageRecords, UsageRow } from "../usage-records.js";

interface UsageDbRow {
  key_id: string;
  day: string;
  operation: string;
  count: number;
}

function toUsage(r: UsageDbRow): UsageRow {
  return { keyId: r.key_id, day: r.day, operation: r.operation, count: r.count };
}

/** UsageRecords over an open, migrated database. */
export function sqliteUsage(db: Database.Database): UsageRecords {
  const s = {
    add: db.prepare(
      `INSERT INTO usage (key_id, day, operation, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (key_id, day, operation) DO UPDATE SET count = count + excluded.count`,
    ),
    ofKey: db.prepare(
      "SELECT key_id, day, operation, count FROM usage WHERE key_id = ? AND day BETWEEN ? AND ? ORDER BY day, operation",
    ),
    ofAccount: db.prepare(
      `SELECT u.key_id, u.day, u.operation, u.count FROM usage u JOIN api_keys k ON k.id = u.key_id
       WHERE k.account_id = ? AND u.day BETWEEN ? AND ? ORDER BY u.day, u.key_id, u.operation`,
    ),
    accountDaily: db.prepare(
      `SELECT u.day, u.operation, SUM(u.count) AS count FROM usage u JOIN api_keys k ON k.id = u.key_id
       WHERE k.account_id = ? AND u.day BETWEEN ? AND ? GROUP BY u.day, u.operation ORDER BY u.day, u.operation`,
    ),
    accountTotals: db.prepare(
      `SELECT k.account_id, SUM(u.count) AS count FROM usage u JOIN api_keys k ON k.id = u.key_id
       WHERE u.day BETWEEN ? AND ? GROUP BY k.account_id`,
    ),
  };
  return {
    async recordUsage(keyId, day, operation, n) {
      checkIncrement(day, operation, n);
      s.add.run(keyId, day, operation, n);
    },
    async usageBetween(keyId, fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      return (s.ofKey.all(keyId, fromDay, toDay) as UsageDbRow[]).map(toUsage);
    },
    async usageByAccount(accountId, fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      return (s.ofAccount.all(accountId, fromDay, toDay) as UsageDbRow[]).map(toUsage);
    },
    async accountDailyUsage(accountId, fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      return s.accountDaily.all(accountId, fromDay, toDay) as AccountDayUsage[];
    },
    async usageTotalsByAccount(fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      const rows = s.accountTotals.all(fromDay, toDay) as { account_id: string; count: number }[];
      return new Map(rows.map((r) => [r.account_id, r.count]));
    },
  };
}
