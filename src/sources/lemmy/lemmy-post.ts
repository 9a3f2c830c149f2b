/**
 * A Lemmy PostView (`{post, creator, community, counts}`) as a post. The id follows the post to
 * the instance it was written on: an `ap_id` of the form `https://<origin>/post/<id>` gives
 * `lemmy:<origin>:<id>`, so one post read through two federated instances is one post; any other
 * `ap_id` (kbin, Mbin) keeps the asking instance's own id, `lemmy:<instance host>:<post id>`.
 * Deleted and removed posts are not posts.
 */
import { count, text } from "../../ingest/field-values.js";
import { decodeEntities, markdownToText, singleLine } from "../../ingest/plain-text.js";
import type { Post } from "../../model/post.js";
import { postId } from "../../model/post.js";
import type { LemmySettings } from "./lemmy-settings.js";

/** Lemmy before 0.19 wrote times without a zone; they are UTC. */
export function lemmyTime(value: unknown): number {
  const raw = text(value) ?? "";
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(raw) ? raw : `${raw}Z`);
}

const LEMMY_POST_URL = /^https?:\/\/([a-z0-9.-]+(?::\d+)?)\/post\/(\d+)$/i;

/** The native id of a post: the origin's when its ap_id says, else the instance's. */
export function lemmyNativeId(post: Record<string, unknown>, settings: LemmySettings): string {
  const origin = LEMMY_POST_URL.exec(text(post["ap_id"]) ?? "");
  return origin === null ? `${settings.host}:${String(post["id"])}` : `${origin[1]!.toLowerCase()}:${origin[2]!}`;
}

/** The post for one PostView, or undefined for a deleted, removed or malformed one. */
export function lemmyPost(view: Record<string, unknown>, settings: LemmySettings): Post | undefined {
  const post = view["post"] as Record<string, unknown> | undefined;
  if (post === undefined || typeof post["id"] !== "number") return undefined;
  if (post["deleted"] === true || post["removed"] === true) return undefined;
  const title = text(post["name"]);
  const created = lemmyTime(post["published"]);
  if (title === undefined || Number.isNaN(created)) return undefined;
  const creator = view["creator"] as Record<string, unknown> | undefined;
  const community = view["community"] as Record<string, unknown> | undefined;
  const counts = view["counts"] as Record<string, unknown> | undefined;
  const nativeId = lemmyNativeId(post, settings);
  return {
    id: postId("lemmy", nativeId),
    source: "lemmy",
    nativeId,
    title: singleLine(decodeEntities(title)),
    content: markdownToText(typeof post["body"] === "string" ? post["body"] : ""),
    subforum: text(community?.["name"]) ?? settings.community,
    author: text(creator?.["name"]) ?? "",
    upvotes: count(counts?.["score"]),
    comments: count(counts?.["comments"]),
    created,
    url: text(post["ap_id"]) ?? `${settings.instanceUrl}/post/${post["id"]}`,
  };
}
