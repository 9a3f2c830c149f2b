/**
 * What every reader yields: a post with the line it started on, or a skipped record with the
 * reason. Readers never throw for one bad record; they throw only when the input as a whole
 * cannot be read (unreadable file, truncated compressed stream, a listing that is not JSON).
 */
import type { Post } from "../model/post.js";

/**
 * Why a record was skipped. A closed set so the summary can count by reason:
 * - bad_json: the line or document is not valid JSON, or not a JSON object
 * - bad_row: a CSV row the parser rejects (wrong column count, broken quoting)
 * - missing_id: no usable native id
 * - missing_title: empty title (a post without a title cannot be shown or searched by title)
 * - bad_date: missing, unparseable, not a day of the calendar (30 February) or out-of-range creation time
 * - deleted: the post itself is gone (title "[deleted]"/"[removed]", HN `deleted`/`dead`);
 *   a deleted or removed *body* is not a skip: the post keeps its title with empty content
 * - not_a_post: a record of another kind (reddit t1 comment, HN comment/job/poll)
 */
export const SKIP_REASONS = [
  "bad_json",
  "bad_row",
  "missing_id",
  "missing_title",
  "bad_date",
  "deleted",
  "not_a_post",
] as const;
/** One of {@link SKIP_REASONS}. */
export type SkipReason = (typeof SKIP_REASONS)[number];

/** A record left out, with the 1-based line it starts on. */
export interface Skip {
  line: number;
  reason: SkipReason;
  /** Short human detail, e.g. the JSON parse error. */
  detail?: string;
}

/** One reader output. `line` is the 1-based line the record starts on. */
export type ReadItem = { post: Post; line: number } | { skip: Skip };

/** A byte source: a file stream, possibly through a decompressor. */
export type ByteSource = AsyncIterable<Buffer>;

/** A reader: bytes in, posts and skips out, in input order, constant memory. */
export type RecordReader = (bytes: ByteSource) => AsyncGenerator<ReadItem>;

/** Builds a skip item. */
export function skip(line: number, reason: SkipReason, detail?: string): ReadItem {
  return detail === undefined ? { skip: { line, reason } } : { skip: { line, reason, detail } };
}
