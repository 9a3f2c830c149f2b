/**
 * Argument rules for usage counters, shared by both stores so a bad day string or count is
 * refused the same way everywhere instead of becoming a row no range query will ever find.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC day of an instant as YYYY-MM-DD, the unit usage is counted in. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** True for a real calendar day written YYYY-MM-DD. */
export function isUsageDay(value: string): boolean {
  const m = DAY.exec(value);
  if (m === null) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return utcDay(d) === value;
}

/** Throws RangeError naming the argument when a usage increment is invalid. */
export function checkIncrement(day: string, operation: string, n: number): void {
  if (!isUsageDay(day)) throw new RangeError(`day must be a calendar day YYYY-MM-DD, got "${day}"`);
  if (operation.length === 0) throw new RangeError("operation must not be empty");
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`n must be a whole number >= 1, got ${n}`);
}

/** Throws RangeError when a day range is malformed; an empty range (from > to) is allowed. */
export function checkDayRange(fromDay: string, toDay: string): void {
  if (!isUsageDay(fromDay)) throw new RangeError(`fromDay must be a calendar day YYYY-MM-DD, got "${fromDay}"`);
  if (!isUsageDay(toDay)) throw new RangeError(`toDay must be a calendar day YYYY-MM-DD, got "${toDay}"`);
}
