/**
 * A Discourse topic as a post: the topic's title and counts from `/t/{id}.json`, the text of its
 * first post (`post_stream.posts[0].cooked`, HTML made plain), filed under its category's slug.
 * Ids are `discourse:<host>:<topic id>`: topic ids never change, and the host keeps two forums'
 * topic 42 apart.
 */
import { count, text } from "../../ingest/field-values.js";
import { decodeEntities, htmlToText, singleLine } from "../../ingest/plain-text.js";
import type { Post } from "../../model/post.js";
import { postId } from "../../model/post.js";
import type { DiscourseSettings } from "./discourse-settings.js";

/** The id a topic gets. */
export function discourseTopicId(host: string, topicId: number): string {
  return postId("discourse", `${host}:${topicId}`);
}

/** The post for a `/t/{id}.json` answer, or undefined when it lacks a title, date or first post. */
export function topicPost(
  topic: Record<string, unknown>,
  settings: DiscourseSettings,
  categorySlug: (id: unknown) => string,
): Post | undefined {
  const id = topic["id"];
  const title = text(topic["title"]);
  const created = Date.parse(text(topic["created_at"]) ?? "");
  const stream = topic["post_stream"] as { posts?: Record<string, unknown>[] } | undefined;
  const first = stream?.posts?.find((p) => p["post_number"] === 1) ?? stream?.posts?.[0];
  if (typeof id !== "number" || title === undefined || Number.isNaN(created) || first === undefined) return undefined;
  const nativeId = `${settings.host}:${id}`;
  return {
    id: postId("discourse", nativeId),
    source: "discourse",
    nativeId,
    title: singleLine(decodeEntities(title)),
    content: htmlToText(typeof first["cooked"] === "string" ? first["cooked"] : ""),
    subforum: categorySlug(topic["category_id"]),
    author: text(first["username"]) ?? "",
    upvotes: count(topic["like_count"]),
    comments: Math.max(0, count(topic["posts_count"]) - 1),
    created,
    url: `${settings.baseUrl}/t/${text(topic["slug"]) ?? "topic"}/${id}`,
  };
}
