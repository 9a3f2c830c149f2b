/**
 * The Reddit cursor: the highest post id written (base36, as Reddit's ids grow), when the last
 * full walk started (edits after it are re-read), and, while a walk is unfinished, the listing's
 * `after` fullname to continue from. Stored as JSON; an unreadable cursor is an error.
 */
import { SourceRequestError } from "../http/http-error.js";

/** An unfinished walk. */
export interface RedditResume {
  after: string;
  top: string;
  startedAt: number;
}

/** Where a Reddit source stands. */
export interface RedditCursor {
  maxId: string;
  checkedAt: number;
  resume: RedditResume | undefined;
}

const BASE36 = /^[0-9a-z]{1,10}$/;

/** A base36 post id as a number, for comparing; ids up to ten digits are exact. */
export function redditIdValue(id: string): number {
  return Number.parseInt(id, 36);
}

/** Reads a stored cursor (undefined: a fresh source). */
export function parseRedditCursor(raw: string | undefined): RedditCursor | undefined {
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<RedditCursor>;
    const r = v.resume ?? undefined;
    if (typeof v.maxId !== "string" || !BASE36.test(v.maxId) || !Number.isSafeInteger(v.checkedAt))
      throw new Error("bad fields");
    if (r !== undefined && (typeof r.after !== "string" || !BASE36.test(r.top) || !Number.isSafeInteger(r.startedAt)))
      throw new Error("bad resume");
    return { maxId: v.maxId, checkedAt: v.checkedAt!, resume: r };
  } catch {
    throw new SourceRequestError("settings", `stored Reddit cursor is unreadable: ${raw.slice(0, 100)}`);
  }
}

/** The cursor as stored. */
export function formatRedditCursor(cursor: RedditCursor): string {
  const { resume, ...rest } = cursor;
  return JSON.stringify(resume === undefined ? rest : cursor);
}
