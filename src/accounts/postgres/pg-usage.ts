/** The usage part of the PostgreSQL store: per-day counters, summed per key or account. */
import type pg from "pg";
import { checkDayRange, checkIncrement } from "../usage-args.js";
import type { UsageRecords, UsageRow } from "../usage-records.js";
import { pgRows } from "./pg-rows.js";

interface UsageDbRow {
  key_id: string;
  day: string;
  operation: string;
  count: string;
}

// Text ORDER BY uses the C collation so both backends sort ids and operations byte-wise alike.
// pg turns `date` into a local-midnight Date, which shifts days west of UTC; text keeps them exact.
const USAGE_COLUMNS = "u.key_id, to_char(u.day, 'YYYY-MM-DD') AS day, u.operation, u.count";

function toUsage(r: UsageDbRow): UsageRow {
  return { keyId: r.key_id, day: r.day, operation: r.operation, count: Number(r.count) };
}

/** UsageRecords over a pool to a migrated database. Increments are single atomic upserts. */
export function pgUsage(pool: pg.Pool): UsageRecords {
  const rows = pgRows(pool);
  return {
    async recordUsage(keyId, day, operation, n) {
      checkIncrement(day, operation, n);
      await pool.query(
        `INSERT INTO usage (key_id, day, operation, count) VALUES ($1, $2::date, $3, $4)
         ON CONFLICT (key_id, day, operation) DO UPDATE SET count = usage.count + EXCLUDED.count`,
        [keyId, day, operation, n],
      );
    },
    async usageBetween(keyId, fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      const found = await rows<UsageDbRow>(
        `SELECT ${USAGE_COLUMNS} FROM usage u
         WHERE u.key_id = $1 AND u.day BETWEEN $2::date AND $3::date ORDER BY u.day, u.operation COLLATE "C"`,
        [keyId, fromDay, toDay],
      );
      return found.map(toUsage);
    },
    async usageByAccount(accountId, fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      const found = await rows<UsageDbRow>(
        `SELECT ${USAGE_COLUMNS} FROM usage u JOIN api_keys k ON k.id = u.key_id
         WHERE k.account_id = $1 AND u.day BETWEEN $2::date AND $3::date
         ORDER BY u.day, u.key_id COLLATE "C", u.operation COLLATE "C"`,
        [accountId, fromDay, toDay],
      );
      return found.map(toUsage);
    },
    async accountDailyUsage(accountId, fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      const found = await rows<{ day: string; operation: string; count: string }>(
        `SELECT to_char(u.day, 'YYYY-MM-DD') AS day, u.operation, SUM(u.count)::bigint AS count
         FROM usage u JOIN api_keys k ON k.id = u.key_id
         WHERE k.account_id = $1 AND u.day BETWEEN $2::date AND $3::date
         GROUP BY u.day, u.operation ORDER BY u.day, u.operation COLLATE "C"`,
        [accountId, fromDay, toDay],
      );
      return found.map((r) => ({ day: r.day, operation: r.operation, count: Number(r.count) }));
    },
    async usageTotalsByAccount(fromDay, toDay) {
      checkDayRange(fromDay, toDay);
      const found = await rows<{ account_id: string; count: string }>(
        `SELECT k.account_id, SUM(u.count)::bigint AS count FROM usage u JOIN api_keys k ON k.id = u.key_id
         WHERE u.day BETWEEN $1::date AND $2::date GROUP BY k.account_id`,
        [fromDay, toDay],
      );
      return new Map(found.map((r) => [r.account_id, Number(r.count)]));
    },
  };
}
