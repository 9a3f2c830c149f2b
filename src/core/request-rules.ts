/**
 * The request rules the spec leaves open, decided once and shared by every protocol (REST
 * reaches the same handlers as gRPC). Each rule throws an AppError naming the field and the
 * rule, with the offending value, so the message tells the caller how to fix the call.
 * The README's "Validation" table documents exactly these constants.
 */
import { AppError } from "../errors/app-error.js";

/** Bounds and defaults. */
export const RULES = Object.freeze({
  limitDefault: 10,
  limitMin: 1,
  limitMax: 100,
  queryMaxChars: 500,
  minScoreDefault: 50,
  minScoreMin: 0,
  minScoreMax: 100,
  subforumsMax: 20,
  subforumMaxChars: 100,
  /** Deepest result reachable by paging (offset + limit). */
  pagingDepthMax: 1000,
  /** Longest accepted date range, days (inclusive), for search filters. */
  searchSpanMaxDays: 3660,
  /** Longest accepted trends window, days (inclusive). */
  trendsSpanMaxDays: 731,
  /** Trends window when start_date is omitted, days ending at end_date. */
  trendsDefaultDays: 30,
  earliestDate: "1970-01-01",
  latestDate: "2100-12-31",
});

/** A required free-text field: trimmed, non-empty, bounded length. Returns the trimmed text. */
export function requireText(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === "") throw new AppError("MISSING_FIELD", `${field} is required and must not be blank`, { field });
  const chars = [...trimmed].length;
  if (chars > RULES.queryMaxChars) {
    throw new AppError("OUT_OF_RANGE", `${field} must be at most ${RULES.queryMaxChars} characters, got ${chars}`, { field });
  }
  return trimmed;
}

/** An optional integer with a default and inclusive bounds. */
export function boundedInt(field: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new AppError("OUT_OF_RANGE", `${field} must be between ${min} and ${max}, got ${value}`, { field });
  }
  return value;
}

/** `limit`: 1..100, default 10. */
export function resolveLimit(value: number | undefined): number {
  return boundedInt("limit", value, RULES.limitDefault, RULES.limitMin, RULES.limitMax);
}

/** `min_score`: 0..100, default 50. */
export function resolveMinScore(value: number | undefined): number {
  return boundedInt("min_score", value, RULES.minScoreDefault, RULES.minScoreMin, RULES.minScoreMax);
}

/**
 * Characters no subforum name contains. Refused up front: index filters cannot carry some of
 * them (LanceDB refuses NUL), and a name with them can only be a client mistake.
 */
export const SUBFORUM_FORBIDDEN_CHARS = "\\u0000-\\u001f\\u007f";
const SUBFORUM_FORBIDDEN = new RegExp(`[${SUBFORUM_FORBIDDEN_CHARS}]`, "u");

/** `subforums`: at most 20 non-blank names of at most 100 characters, no control characters; duplicates removed. */
export function resolveSubforums(values: readonly string[]): string[] {
  if (values.length > RULES.subforumsMax) {
    throw new AppError("OUT_OF_RANGE", `subforums must list at most ${RULES.subforumsMax} names, got ${values.length}`, { field: "subforums" });
  }
  const out = new Set<string>();
  values.forEach((raw, i) => {
    const name = raw.trim();
    if (name === "" || [...name].length > RULES.subforumMaxChars) {
      throw new AppError("INVALID_ARGUMENT", `subforums[${i}] must be 1..${RULES.subforumMaxChars} characters`, { field: `subforums[${i}]` });
    }
    if (SUBFORUM_FORBIDDEN.test(name)) {
      throw new AppError("INVALID_ARGUMENT", `subforums[${i}] must not contain control characters`, { field: `subforums[${i}]` });
    }
    out.add(name);
  });
  return [...out];
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** Parses a YYYY-MM-DD calendar date to the epoch ms of its UTC midnight; rejects the 30th of February. */
export function parseDay(field: string, value: string): number {
  const m = DAY.exec(value);
  if (m === null) throw new AppError("INVALID_DATE", `${field} must be a date in the form YYYY-MM-DD, got "${value}"`, { field });
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    throw new AppError("INVALID_DATE", `${field} is not a real calendar date: "${value}"`, { field });
  }
  if (value < RULES.earliestDate || value > RULES.latestDate) {
    throw new AppError("INVALID_DATE", `${field} must be between ${RULES.earliestDate} and ${RULES.latestDate}, got "${value}"`, { field });
  }
  return ms;
}

/** Formats epoch ms as its UTC day, YYYY-MM-DD. */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** An inclusive range of whole UTC days: `from` is the first day's midnight, `to` the last ms of the last day. */
export interface DayRange {
  from: number;
  to: number;
  startDay: string;
  endDay: string;
  days: number;
}

function span(fromDayMs: number, toDayMs: number): DayRange {
  return {
    from: fromDayMs,
    to: toDayMs + MS_PER_DAY - 1,
    startDay: formatDay(fromDayMs),
    endDay: formatDay(toDayMs),
    days: Math.round((toDayMs - fromDayMs) / MS_PER_DAY) + 1,
  };
}

function checkOrderAndSpan(start: number, end: number, maxDays: number): void {
  if (start > end) {
    throw new AppError("INVALID_DATE", `start_date must not be after end_date (got ${formatDay(start)} > ${formatDay(end)})`, { field: "start_date" });
  }
  const days = Math.round((end - start) / MS_PER_DAY) + 1;
  if (days > maxDays) {
    throw new AppError("OUT_OF_RANGE", `the date range must span at most ${maxDays} days, got ${days}`, { field: "end_date" });
  }
}

/**
 * Search date filter: both dates optional (an open side is unbounded); when both are given,
 * start <= end and the span is at most searchSpanMaxDays. Returns undefined bounds for open sides.
 */
export function resolveSearchRange(startDate: string, endDate: string): { from?: number; to?: number } {
  const start = startDate === "" ? undefined : parseDay("start_date", startDate);
  const end = endDate === "" ? undefined : parseDay("end_date", endDate);
  if (start !== undefined && end !== undefined) checkOrderAndSpan(start, end, RULES.searchSpanMaxDays);
  return {
    ...(start !== undefined ? { from: start } : {}),
    ...(end !== undefined ? { to: end + MS_PER_DAY - 1 } : {}),
  };
}

/**
 * Trends window: end defaults to `latestDataDay` (the newest day with posts), start to
 * trendsDefaultDays before end; start <= end; at most trendsSpanMaxDays.
 */
export function resolveTrendsRange(startDate: string, endDate: string, latestDataDay: number): DayRange {
  const end = endDate === "" ? latestDataDay : parseDay("end_date", endDate);
  const start = startDate === "" ? end - (RULES.trendsDefaultDays - 1) * MS_PER_DAY : parseDay("start_date", startDate);
  checkOrderAndSpan(start, end, RULES.trendsSpanMaxDays);
  return span(start, end);
}

/** UTC midnight of the day containing `ms`. */
export function dayStart(ms: number): number {
  return Math.floor(ms / MS_PER_DAY) * MS_PER_DAY;
}
