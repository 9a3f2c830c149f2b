/**
 * Reddit submission -> Post, shared by the dump (NDJSON), API listing and CSV readers, which all
 * carry Reddit API field names. Text fields are markdown with `&`, `<`, `>` escaped as entities
 * (older posts escaped repeatedly); both are undone. A "[deleted]"/"[removed]" body keeps the post with empty content (the title is
 * still searchable); a "[deleted]"/"[removed]" title skips it.
 */
import { postId } from "../../model/post.js";
import { count, epochSecondsToMs, text } from "../field-values.js";
import { decodeEntities, markdownToText, singleLine } from "../plain-text.js";
import type { ReadItem } from "../read-item.js";
import { skip } from "../read-item.js";

const GONE = new Set(["[deleted]", "[removed]"]);
/** Older reddit text is escaped more than once ("&amp;amp;"); three passes undo what occurs in practice. */
const ENTITY_PASSES = 3;

/** Path part of a permalink that may be a full URL ("http://www.reddit.com/r/x/comments/..."). */
function permalinkPath(permalink: string): string {
  if (permalink.startsWith("/")) return permalink;
  try {
    return new URL(permalink).pathname;
  } catch {
    return `/${permalink}`;
  }
}

/**
 * Maps one submission object (JSON values, or CSV strings with the same names) to a post.
 * `line` is where the record starts, for skips.
 */
export function redditSubmission(record: Record<string, unknown>, line: number): ReadItem {
  const name = text(record["name"]);
  const nativeId = text(record["id"]) ?? (name?.startsWith("t3_") === true ? name.slice(3) : undefined);
  if (nativeId === undefined) return skip(line, "missing_id");
  const rawTitle = text(record["title"]);
  if (rawTitle === undefined) return skip(line, "missing_title", `id ${nativeId}`);
  if (GONE.has(rawTitle)) return skip(line, "deleted", `id ${nativeId}`);
  const created = epochSecondsToMs(record["created_utc"]);
  if (created === undefined)
    return skip(line, "bad_date", `id ${nativeId}: created_utc ${JSON.stringify(record["created_utc"])}`);
  const permalink = text(record["permalink"]);
  const path = permalink === undefined ? `/comments/${nativeId}/` : permalinkPath(permalink);
  const subforum = text(record["subreddit"]) ?? /^\/r\/([^/]+)\//.exec(path)?.[1] ?? "";
  const body = typeof record["selftext"] === "string" ? record["selftext"] : "";
  const author = text(record["author"]) ?? "";
  return {
    line,
    post: {
      id: postId("reddit", nativeId),
      source: "reddit",
      nativeId,
      title: singleLine(decodeEntities(rawTitle, ENTITY_PASSES)),
      content: GONE.has(body.trim()) ? "" : markdownToText(body, { entityPasses: ENTITY_PASSES }),
      subforum,
      author: GONE.has(author) ? "" : author,
      upvotes: count(record["score"]),
      comments: count(record["num_comments"]),
      created,
      url: `https://www.reddit.com${path}`,
    },
  };
}
