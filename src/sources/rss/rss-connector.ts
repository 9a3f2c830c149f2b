/**
 * The RSS/Atom source, parsed by rss-parser (never by hand). Each poll is one conditional GET
 * (If-None-Match / If-Modified-Since from the last answer's ETag and Last-Modified): a 304 costs
 * nothing. Entries already written with the same content are skipped, so a feed that keeps
 * repeating old entries costs no embedding; an entry whose content changed is written again
 * (an update of the same post).
 */
import Parser from "rss-parser";
import type { Post } from "../../model/post.js";
import { SourceRequestError } from "../http/http-error.js";
import type { Connector, PollContext, SourceBatch } from "../source.js";
import type { FeedItem } from "./feed-entry.js";
import { digest, entryKey, entryPost } from "./feed-entry.js";
import { rssSettings } from "./rss-settings.js";

/** Entries remembered per feed (most recent first); older ones fall out. */
export const RSS_REMEMBERED = 2_000;

interface RssCursor {
  etag?: string | undefined;
  lastModified?: string | undefined;
  /** Entry key digest -> content digest, oldest first. */
  seen: [string, string][];
}

function parseCursor(raw: string | undefined): RssCursor {
  if (raw === undefined) return { seen: [] };
  try {
    const v = JSON.parse(raw) as RssCursor;
    if (!Array.isArray(v.seen)) throw new Error("no seen list");
    return v;
  } catch {
    throw new SourceRequestError("settings", `stored feed cursor is unreadable: ${raw.slice(0, 100)}`);
  }
}

const parser = new Parser();

async function* pollFeed(context: PollContext): AsyncGenerator<SourceBatch> {
  const settings = rssSettings(context.settings);
  const cursor = parseCursor(context.cursor);
  const answer = await context.http.getText(settings.url, { etag: cursor.etag, lastModified: cursor.lastModified });
  if (answer.notModified) return;
  let feed: { items: FeedItem[] };
  try {
    feed = (await parser.parseString(answer.body ?? "")) as { items: FeedItem[] };
  } catch (err) {
    throw new SourceRequestError("bad_response", `the feed is not RSS or Atom: ${(err as Error).message}`);
  }
  const seen = new Map(cursor.seen);
  const posts: Post[] = [];
  let looked = 0;
  for (const item of feed.items.slice(0, context.maxItems)) {
    looked += 1;
    const post = entryPost(item, settings, context.now());
    if (post === undefined) continue;
    const key = digest(entryKey(item));
    const content = digest(`${post.title}\n${post.content}`);
    if (seen.get(key) === content) continue;
    seen.delete(key);
    seen.set(key, content);
    posts.push(post);
  }
  // Newest last in the map; keep the most recent RSS_REMEMBERED.
  const kept = [...seen.entries()].slice(-RSS_REMEMBERED);
  const next: RssCursor = {
    etag: answer.headers.get("etag") ?? undefined,
    lastModified: answer.headers.get("last-modified") ?? undefined,
    seen: kept,
  };
  yield { posts, cursor: JSON.stringify(next), seen: looked };
}

/** The connector registered for kind "rss". */
export const rssConnector: Connector = {
  kind: "rss",
  validate: rssSettings,
  describe: (settings) => rssSettings(settings).url,
  poll: pollFeed,
};
