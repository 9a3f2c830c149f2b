/**
 * Lenient conversions from loosely typed source fields (JSON values, CSV strings) to the typed
 * values a Post needs. Each returns undefined for "absent or unusable" so the reader decides
 * whether that is a skip (id, title, date) or a default (counts, author).
 */

/** Earliest and latest creation times accepted: before the web forums we read, or far future. */
const MIN_CREATED_MS = Date.UTC(1990, 0, 1);
const MAX_CREATED_MS = Date.UTC(2100, 0, 1);

/** A non-empty trimmed string from a string or number, else undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value === "string") {
    const t = value.trim();
    return t.length > 0 ? t : undefined;
  }
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A whole number from a number or numeric string ("12", "12.0"); `fallback` otherwise. */
export function count(value: unknown, fallback = 0): number {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** Accepts epoch ms only inside the plausible range. */
function inRange(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= MIN_CREATED_MS && ms <= MAX_CREATED_MS ? Math.round(ms) : undefined;
}

/** Epoch seconds (number or numeric string, e.g. reddit's "1371237018.0") -> epoch ms. */
export function epochSecondsToMs(value: unknown): number | undefined {
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value)
        ? Number(value)
        : NaN;
  return inRange(n * 1000);
}

/**
 * Whether year-month-day names a day of the calendar. Date.parse rolls the 30th of February over
 * to 1 March instead of refusing it, so a mistyped date would be stored as another real one.
 */
function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Any common timestamp -> epoch ms: numbers below 1e11 are seconds, larger ones milliseconds;
 * strings are numeric (same rule) or ISO 8601 (a date without zone is UTC).
 */
export function anyTimeToMs(value: unknown): number | undefined {
  if (typeof value === "number") return inRange(value < 1e11 ? value * 1000 : value);
  if (typeof value !== "string") return undefined;
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return anyTimeToMs(Number(s));
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (day === null || !isCalendarDay(Number(day[1]), Number(day[2]), Number(day[3]))) return undefined;
  // A written 24:00 is the next day's midnight, which Date.parse accepts (the day itself is checked above).
  const isoUtc = /^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : /[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`;
  return inRange(Date.parse(isoUtc.replace(" ", "T")));
}

/** "M/D/YYYY H:MM" (Hacker News CSV export, UTC) -> epoch ms. */
export function usDateTimeUtcToMs(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$/.exec(value);
  if (m === null) return undefined;
  const [month, day, year, hour, minute, second] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x))) as number[];
  if (hour! > 23 || minute! > 59 || second! > 59 || !isCalendarDay(year!, month!, day!)) return undefined;
  return inRange(Date.UTC(year!, month! - 1, day!, hour, minute, second));
}

/** Reads a dotted path ("data.title") from a JSON object. */
export function pathValue(record: Record<string, unknown>, path: string): unknown {
  let value: unknown = record;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
