/**
 * The Hacker News cursor: the next item id to read from Firebase, and how far an Algolia backfill
 * got (its next page, or done). Stored as JSON; an unreadable cursor is an error, never a silent
 * restart from scratch.
 */
import { SourceRequestError } from "../http/http-error.js";

/** Where a Hacker News source stands. */
export interface HnCursor {
  /** Next Firebase item id to read; undefined until the first walk fixes it from maxitem. */
  next: number | undefined;
  /** Next Algolia page of the backfill; "done" once every page is written. */
  backfillPage: number | "done";
}

/** Reads a stored cursor (undefined: a fresh source). */
export function parseHnCursor(raw: string | undefined): HnCursor {
  if (raw === undefined) return { next: undefined, backfillPage: 0 };
  try {
    const v = JSON.parse(raw) as Partial<HnCursor>;
    const next = v.next === undefined || v.next === null ? undefined : Number(v.next);
    const page = v.backfillPage === "done" ? "done" : Number(v.backfillPage ?? 0);
    if ((next !== undefined && !Number.isSafeInteger(next)) || (page !== "done" && !Number.isSafeInteger(page)))
      throw new Error("bad fields");
    return { next, backfillPage: page };
  } catch {
    throw new SourceRequestError("settings", `stored Hacker News cursor is unreadable: ${raw.slice(0, 100)}`);
  }
}

/** The cursor as stored. */
export function formatHnCursor(cursor: HnCursor): string {
  return JSON.stringify({ next: cursor.next ?? null, backfillPage: cursor.backfillPage });
}
