/**
 * The Discourse cursor: the newest `bumped_at` and the highest topic id written, and, after a
 * poll whose latest list was cut off by the item cap, the catch-up still owed (new topics above
 * `after` that are found through `/posts.json?before=`). Stored as JSON; an unreadable cursor is
 * an error, never a silent restart.
 */
import { SourceRequestError } from "../http/http-error.js";

/** New topics still to catch up on: ids above `after`, from posts older than `before` (null: from the newest). */
export interface DiscourseGap {
  after: number;
  before: number | null;
}

/** Where a Discourse source stands. */
export interface DiscourseCursor {
  /** ISO time of the most recent bump written; topics bumped later are read next poll. */
  bumpedAt: string;
  maxTopicId: number;
  gap: DiscourseGap | undefined;
}

/** Reads a stored cursor (undefined: a fresh source). */
export function parseDiscourseCursor(raw: string | undefined): DiscourseCursor | undefined {
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<DiscourseCursor>;
    const gap = v.gap ?? undefined;
    if (
      typeof v.bumpedAt !== "string" ||
      Number.isNaN(Date.parse(v.bumpedAt)) ||
      !Number.isSafeInteger(v.maxTopicId) ||
      (gap !== undefined &&
        (!Number.isSafeInteger(gap.after) || (gap.before !== null && !Number.isSafeInteger(gap.before))))
    )
      throw new Error("bad fields");
    return { bumpedAt: v.bumpedAt, maxTopicId: v.maxTopicId as number, gap };
  } catch {
    throw new SourceRequestError("settings", `stored Discourse cursor is unreadable: ${raw.slice(0, 100)}`);
  }
}

/** The cursor as stored. */
export function formatDiscourseCursor(cursor: DiscourseCursor): string {
  return JSON.stringify(
    cursor.gap === undefined ? { bumpedAt: cursor.bumpedAt, maxTopicId: cursor.maxTopicId } : cursor,
  );
}
