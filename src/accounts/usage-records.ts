/** Per-day usage counters: calls of one operation by one key on one UTC day. */

/** One usage counter: calls of one operation by one key on one UTC day. */
export interface UsageRow {
  keyId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  operation: string;
  count: number;
}

/** Calls of one operation by all keys of an account on one UTC day. */
export interface AccountDayUsage {
  day: string;
  operation: string;
  count: number;
}

/** The usage part of the store. */
export interface UsageRecords {
  /** Adds n (a whole number >= 1) to a counter, atomically even across processes. */
  recordUsage(keyId: string, day: string, operation: string, n: number): Promise<void>;
  /** Counters of one key for the inclusive day range, ordered by day then operation. */
  usageBetween(keyId: string, fromDay: string, toDay: string): Promise<UsageRow[]>;
  /** Counters of every key of an account, ordered by day, key, operation. */
  usageByAccount(accountId: string, fromDay: string, toDay: string): Promise<UsageRow[]>;
  /** Counters of an account summed over its keys, ordered by day then operation. */
  accountDailyUsage(accountId: string, fromDay: string, toDay: string): Promise<AccountDayUsage[]>;
  /** Total calls per account over the day range; accounts without calls are absent. */
  usageTotalsByAccount(fromDay: string, toDay: string): Promise<Map<string, number>>;
}
