/**
 * What every Hacker News reader (CSV export, API items) builds: the post with its HN item page as
 * url and "hackernews" as subforum (HN has no subforums).
 */
import type { Post } from "../../model/post.js";
import { postId } from "../../model/post.js";
import { decodeEntities, singleLine } from "../plain-text.js";

/** The subforum every Hacker News post gets. */
export const HN_SUBFORUM = "hackernews";

/** The HN discussion page of an item. */
export function hnItemUrl(id: string): string {
  return `https://news.ycombinator.com/item?id=${id}`;
}

/** Fields that differ between HN sources. */
export type HnFields = Pick<Post, "nativeId" | "title" | "content" | "author" | "upvotes" | "comments" | "created">;

/** A Hacker News post from its fields; the title is entity-decoded and put on one line. */
export function hnPost(fields: HnFields): Post {
  return {
    ...fields,
    id: postId("hackernews", fields.nativeId),
    source: "hackernews",
    title: singleLine(decodeEntities(fields.title)),
    subforum: HN_SUBFORUM,
    url: hnItemUrl(fields.nativeId),
  };
}
