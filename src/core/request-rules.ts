/**
 * The request rules the spec leaves open, decided once and shared by every protocol (REST
 * reaches the same handlers as gRPC). Each rule throws an AppError naming the field and the
 * rule, with the offending value, so the message tells the caller how to fix the call.
 * The README's "Validation" table documents exactly these constants.
 */
import { AppError } from "../errors/app-error.js";
import type { QueryFilter } from "../index/search-index.js";
import { LEAD_TYPES, SENTIMENT_LABELS } from "../model/post.js";

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
  /** Matches an order other than relevance sorts: the most relevant ones, as deep as paging reaches. */
  sortWindow: 1000,
  /** Longest accepted date range, days (inclusive), for search filters. */
  searchSpanMaxDays: 3660,
  /** Longest accepted trends window, days (inclusive). */
  trendsSpanMaxDays: 731,
  /** Trends window when start_date is omitted, days ending at end_date. */
  trendsDefaultDays: 30,
  /** Values per list of a filter (sources, subforums, exclude_subforums, authors, ...). */
  filterValuesMax: 20,
  /** Longest filter value (a subforum, author or source name), characters. */
  filterValueMaxChars: 100,
  /** Bounds of min_upvotes (net votes may be negative) and min_comments. */
  minUpvotesMin: -1_000_000_000,
  minCountMax: 1_000_000_000,
  earliestDate: "1970-01-01",
  latestDate: "2100-12-31",
});

/** A required free-text field: trimmed, non-empty, bounded length. Returns the trimmed text. */
export function requireText(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === "") throw new AppError("MISSING_FIELD", `${field} is required and must not be blank`, { field });
  const chars = [...trimmed].length;
  if (chars > RULES.queryMaxChars) {
    throw new AppError("OUT_OF_RANGE", `${field} must be at most ${RULES.queryMaxChars} characters, got ${chars}`, {
      field,
    });
  }
  return trimmed;
}

/** An optional integer with a default and inclusive bounds. */
export function boundedInt(
  field: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
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

/** `min_relevance` of SemanticSearch: absent, or a number in 0..1. */
export function resolveMinRelevance(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new AppError("OUT_OF_RANGE", `min_relevance must be between 0 and 1, got ${value}`, {
      field: "min_relevance",
    });
  }
  return value;
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
    throw new AppError(
      "OUT_OF_RANGE",
      `subforums must list at most ${RULES.subforumsMax} names, got ${values.length}`,
      { field: "subforums" },
    );
  }
  const out = new Set<string>();
  values.forEach((raw, i) => {
    const name = raw.trim();
    if (name === "" || [...name].length > RULES.subforumMaxChars) {
      throw new AppError("INVALID_ARGUMENT", `subforums[${i}] must be 1..${RULES.subforumMaxChars} characters`, {
        field: `subforums[${i}]`,
      });
    }
    if (SUBFORUM_FORBIDDEN.test(name)) {
      throw new AppError("INVALID_ARGUMENT", `subforums[${i}] must not contain control characters`, {
        field: `subforums[${i}]`,
      });
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
  if (m === null)
    throw new AppError("INVALID_DATE", `${field} must be a date in the form YYYY-MM-DD, got "${value}"`, { field });
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    throw new AppError("INVALID_DATE", `${field} is not a real calendar date: "${value}"`, { field });
  }
  if (value < RULES.earliestDate || value > RULES.latestDate) {
    throw new AppError(
      "INVALID_DATE",
      `${field} must be between ${RULES.earliestDate} and ${RULES.latestDate}, got "${value}"`,
      { field },
    );
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

function checkOrderAndSpan(start: number, end: number, maxDays: number, prefix = ""): void {
  if (start > end) {
    throw new AppError(
      "INVALID_DATE",
      `${prefix}start_date must not be after ${prefix}end_date (got ${formatDay(start)} > ${formatDay(end)})`,
      { field: `${prefix}start_date` },
    );
  }
  const days = Math.round((end - start) / MS_PER_DAY) + 1;
  if (days > maxDays) {
    throw new AppError("OUT_OF_RANGE", `the date range must span at most ${maxDays} days, got ${days}`, {
      field: `${prefix}end_date`,
    });
  }
}

/**
 * Search date filter: both dates optional (an open side is unbounded); when both are given,
 * start <= end and the span is at most searchSpanMaxDays. Returns undefined bounds for open sides.
 */
export function resolveSearchRange(startDate: string, endDate: string, prefix = ""): { from?: number; to?: number } {
  const start = startDate === "" ? undefined : parseDay(`${prefix}start_date`, startDate);
  const end = endDate === "" ? undefined : parseDay(`${prefix}end_date`, endDate);
  if (start !== undefined && end !== undefined) checkOrderAndSpan(start, end, RULES.searchSpanMaxDays, prefix);
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

/** The PostFilter message's fields after transport decoding (proto field names in camelCase). */
export interface FilterParams {
  startDate: string;
  endDate: string;
  sources: readonly string[];
  subforums: readonly string[];
  excludeSubforums: readonly string[];
  authors: readonly string[];
  minUpvotes?: number | undefined;
  minComments?: number | undefined;
  sentiments: readonly string[];
  leadTypes: readonly string[];
}

/** The filter fields a request may also carry at its top level, as the spec defines them. */
export interface TopLevelFilter {
  subforums?: readonly string[];
  startDate?: string;
  endDate?: string;
}

/** Source names: lowercase letters, digits, "_" and "-", as readers name them. */
const SOURCE_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** A list of exact-match names: at most filterValuesMax, each non-blank and bounded, no control characters; duplicates removed. */
function nameList(field: string, values: readonly string[], check?: (name: string, at: string) => void): string[] {
  if (values.length > RULES.filterValuesMax) {
    throw new AppError(
      "OUT_OF_RANGE",
      `${field} must list at most ${RULES.filterValuesMax} values, got ${values.length}`,
      { field },
    );
  }
  const out = new Set<string>();
  values.forEach((raw, i) => {
    const at = `${field}[${i}]`;
    const name = raw.trim();
    if (name === "" || [...name].length > RULES.filterValueMaxChars) {
      throw new AppError("INVALID_ARGUMENT", `${at} must be 1..${RULES.filterValueMaxChars} characters`, { field: at });
    }
    if (SUBFORUM_FORBIDDEN.test(name))
      throw new AppError("INVALID_ARGUMENT", `${at} must not contain control characters`, { field: at });
    check?.(name, at);
    out.add(name);
  });
  return [...out];
}

/** A check that a value is one of a closed set, naming the set in the error. */
function oneOf(allowed: readonly string[]): (name: string, at: string) => void {
  return (name, at) => {
    if (!allowed.includes(name)) {
      throw new AppError(
        "INVALID_ARGUMENT",
        `${at} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}, got "${name}"`,
        { field: at },
      );
    }
  };
}

/** A top-level field and its filter twin must not both be set: which one applies would be a guess. */
function eitherOr<T>(
  top: T | undefined,
  inFilter: T,
  isSet: (v: T) => boolean,
  topName: string,
  filterName: string,
): T {
  if (top !== undefined && isSet(top)) {
    if (isSet(inFilter)) {
      throw new AppError("INVALID_ARGUMENT", `${filterName} and ${topName} must not both be given; use one of them`, {
        field: filterName,
      });
    }
    return top;
  }
  return inFilter;
}

const hasItems = (v: readonly string[]): boolean => v.length > 0;
const nonEmpty = (v: string): boolean => v !== "";

/**
 * The `filter` of a search or leads request (with the request's top-level subforums and dates,
 * which the spec defines and which mean the same) as an index QueryFilter. Each rule names the
 * field: lists of at most filterValuesMax names, closed sets for sentiments and lead types,
 * bounded minimums, real days in order, no subforum both included and excluded.
 */
export function resolveFilter(filter: FilterParams | undefined, top: TopLevelFilter = {}): QueryFilter {
  const f: FilterParams = filter ?? {
    startDate: "",
    endDate: "",
    sources: [],
    subforums: [],
    excludeSubforums: [],
    authors: [],
    sentiments: [],
    leadTypes: [],
  };
  eitherOr(top.subforums, f.subforums, hasItems, "subforums", "filter.subforums");
  const topSubforums = (top.subforums ?? []).length > 0;
  // The spec's field keeps its own rule and messages; the filter's twin is named by its path.
  const subforums = topSubforums ? resolveSubforums(top.subforums ?? []) : nameList("filter.subforums", f.subforums);
  const startDate = eitherOr(top.startDate, f.startDate, nonEmpty, "start_date", "filter.start_date");
  const endDate = eitherOr(top.endDate, f.endDate, nonEmpty, "end_date", "filter.end_date");
  const prefix = f.startDate !== "" || f.endDate !== "" ? "filter." : "";
  const range = resolveSearchRange(startDate, endDate, prefix);
  const exclude = nameList("filter.exclude_subforums", f.excludeSubforums);
  const both = exclude.find((s) => subforums.includes(s));
  if (both !== undefined) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `filter.exclude_subforums lists "${both}", which the subforums filter includes; a post cannot be in both`,
      { field: "filter.exclude_subforums" },
    );
  }
  const sources = nameList("filter.sources", f.sources, (name, at) => {
    if (!SOURCE_NAME.test(name))
      throw new AppError(
        "INVALID_ARGUMENT",
        `${at} must be a source name such as "reddit" (lowercase letters, digits, "_" or "-"), got "${name}"`,
        { field: at },
      );
  });
  const minUpvotes =
    f.minUpvotes === undefined
      ? undefined
      : boundedInt("filter.min_upvotes", f.minUpvotes, 0, RULES.minUpvotesMin, RULES.minCountMax);
  const minComments =
    f.minComments === undefined ? undefined : boundedInt("filter.min_comments", f.minComments, 0, 0, RULES.minCountMax);
  const out: QueryFilter = {
    ...(subforums.length > 0 ? { subforums } : {}),
    ...(exclude.length > 0 ? { excludeSubforums: exclude } : {}),
    ...(sources.length > 0 ? { sources } : {}),
    ...(range.from !== undefined ? { createdFrom: range.from } : {}),
    ...(range.to !== undefined ? { createdTo: range.to } : {}),
    ...(minUpvotes !== undefined ? { minUpvotes } : {}),
    ...(minComments !== undefined ? { minComments } : {}),
  };
  const authors = nameList("filter.authors", f.authors);
  const sentiments = nameList("filter.sentiments", f.sentiments, oneOf(SENTIMENT_LABELS));
  const leadTypes = nameList("filter.lead_types", f.leadTypes, oneOf(LEAD_TYPES));
  if (authors.length > 0) out.authors = authors;
  if (sentiments.length > 0) out.sentiments = sentiments;
  if (leadTypes.length > 0) out.leadTypes = leadTypes;
  return out;
}

/** Result orders; "relevance" is the default. */
export const SORT_ORDERS = ["relevance", "newest", "oldest", "top", "most_commented"] as const;
/** One of {@link SORT_ORDERS}. */
export type SortOrder = (typeof SORT_ORDERS)[number];

/** `sort`: "" means relevance; anything else must be one of SORT_ORDERS. */
export function resolveSort(value: string): SortOrder {
  if (value === "") return "relevance";
  if (!(SORT_ORDERS as readonly string[]).includes(value)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `sort must be one of ${SORT_ORDERS.map((o) => `"${o}"`).join(", ")}, got "${value}"`,
      { field: "sort" },
    );
  }
  return value as SortOrder;
}
