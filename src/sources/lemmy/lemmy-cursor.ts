/**
 * The Lemmy cursor: the highest post id written, the newest `published` seen and when the last
 * full walk started (edits after it are re-read), plus, while a walk is unfinished (cut off by
 * the item cap, or killed), the page to continue from. Stored as JSON; an unreadable cursor is an
 * error, never a silent restart.
 */
import { SourceRequestError } from "../http/http-error.js";

/** An unfinished walk: where to continue and what it has seen so far. */
export interface LemmyResume {
  /** The next page: a number (Lemmy before 0.19) or the `next_page` cursor it gave. */
  page: number | string;
  top: number;
  newest: number;
  startedAt: number;
}

/** Where a Lemmy source stands. */
export interface LemmyCursor {
  maxPostId: number;
  /** Newest `published` written, epoch ms. */
  newest: number;
  /** Start of the last finished walk, epoch ms. */
  checkedAt: number;
  resume: LemmyResume | undefined;
}

const int = (v: unknown): boolean => Number.isSafeInteger(v);

/** Reads a stored cursor (undefined: a fresh source). */
export function parseLemmyCursor(raw: string | undefined): LemmyCursor | undefined {
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<LemmyCursor>;
    const r = v.resume ?? undefined;
    if (!int(v.maxPostId) || !int(v.newest) || !int(v.checkedAt)) throw new Error("bad fields");
    if (
      r !== undefined &&
      (!(int(r.page) || typeof r.page === "string") || !int(r.top) || !int(r.newest) || !int(r.startedAt))
    )
      throw new Error("bad resume");
    return { maxPostId: v.maxPostId!, newest: v.newest!, checkedAt: v.checkedAt!, resume: r };
  } catch {
    throw new SourceRequestError("settings", `stored Lemmy cursor is unreadable: ${raw.slice(0, 100)}`);
  }
}

/** The cursor as stored. */
export function formatLemmyCursor(cursor: LemmyCursor): string {
  const { resume, ...rest } = cursor;
  return JSON.stringify(resume === undefined ? rest : cursor);
}
