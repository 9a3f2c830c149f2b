/**
 * A parsed feed entry as a post. Thread links of Reddit (`/comments/<id>/`) and Hacker News
 * (`item?id=<id>`) take those sites' ids, the ones their dump readers make; any other entry is
 * `<source>:<host>:<hash of its guid>`, stable across polls whatever the feed reorders.
 */
import { createHash } from "node:crypto";
import { decodeEntities, htmlToText, singleLine } from "../../ingest/plain-text.js";
import type { Post } from "../../model/post.js";
import { postId } from "../../model/post.js";
import type { RssSettings } from "./rss-settings.js";

/** The fields of an rss-parser item this connector reads. */
export interface FeedItem {
  guid?: string;
  id?: string;
  link?: string;
  title?: string;
  content?: string;
  contentSnippet?: string;
  creator?: string;
  author?: string;
  isoDate?: string;
  pubDate?: string;
}

const REDDIT_THREAD = /^https?:\/\/(?:[a-z]+\.)?reddit\.com\/r\/([^/]+)\/comments\/([a-z0-9]+)/i;
const HN_THREAD = /^https?:\/\/news\.ycombinator\.com\/item\?id=(\d+)/;

/** The key an entry is remembered by between polls. */
export function entryKey(item: FeedItem): string {
  return item.guid ?? item.id ?? item.link ?? item.title ?? "";
}

/** A short digest, for ids and for telling an edited entry from a repeated one. */
export function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The post for `item`, or undefined when it has no title or no key. */
export function entryPost(item: FeedItem, settings: RssSettings, now: number): Post | undefined {
  const key = entryKey(item);
  const title = item.title === undefined ? "" : singleLine(decodeEntities(item.title));
  if (key === "" || title === "") return undefined;
  const link = item.link ?? "";
  const parsed = Date.parse(item.isoDate ?? item.pubDate ?? "");
  const created = Number.isNaN(parsed) ? now : parsed;
  const host = (() => {
    try {
      return new URL(settings.url).host;
    } catch {
      return "feed";
    }
  })();
  const base = {
    title,
    content: item.content !== undefined ? htmlToText(item.content) : (item.contentSnippet ?? ""),
    author: item.creator ?? item.author ?? "",
    upvotes: 0,
    comments: 0,
    created,
    url: link,
  };
  const reddit = settings.matchSiteIds ? REDDIT_THREAD.exec(link) : null;
  if (reddit !== null)
    return {
      ...base,
      id: postId("reddit", reddit[2]!),
      source: "reddit",
      nativeId: reddit[2]!,
      subforum: settings.subforum ?? reddit[1]!,
    };
  const hn = settings.matchSiteIds ? HN_THREAD.exec(link) : null;
  if (hn !== null)
    return {
      ...base,
      id: postId("hackernews", hn[1]!),
      source: "hackernews",
      nativeId: hn[1]!,
      subforum: "hackernews",
      url: `https://news.ycombinator.com/item?id=${hn[1]!}`,
    };
  const nativeId = `${host}:${digest(key)}`;
  return {
    ...base,
    id: postId(settings.source, nativeId),
    source: settings.source,
    nativeId,
    subforum: settings.subforum ?? host,
  };
}
