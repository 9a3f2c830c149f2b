/**
 * A local feed server in the shape of a forum's RSS 2.0 feed (RSS 2.0 specification,
 * www.rssboard.org/rss-specification: channel with title/link/description, items with title,
 * link, guid, pubDate, description, dc:creator), serving real Reddit corpus posts as a subreddit
 * feed does (links to /r/<sub>/comments/<id>/). It answers conditional requests as servers do:
 * an ETag and Last-Modified on every answer, 304 Not Modified when If-None-Match matches.
 * Like real feeds, it keeps repeating the entries it already served until they scroll off.
 */
import type { Post } from "../../src/model/post.js";
import type { PoliteServer, RouteAnswer } from "./polite-server.js";
import { startPoliteServer } from "./polite-server.js";

/** The running fake. */
export interface FakeFeed extends PoliteServer {
  /** Adds posts to the top of the feed (newest first), keeping the latest `window`. */
  publish(posts: readonly Post[]): void;
  /** Replaces an entry's text, as an edited forum post. */
  edit(id: string, content: string): void;
  /** 304 answers sent. */
  notModified: number;
}

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Starts a feed at /r/<subreddit>/.rss listing at most `window` entries. */
export async function startFakeFeed(subreddit: string, window = 25): Promise<FakeFeed> {
  let entries: Post[] = [];
  let version = 0;
  let modified = new Date();
  let notModified = 0;
  const render = (): string =>
    `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>${esc(subreddit)}</title><link>https://www.reddit.com/r/${esc(subreddit)}/</link><description>posts in r/${esc(subreddit)}</description>
${entries
  .map(
    (
      p,
    ) => `<item><title>${esc(p.title)}</title><link>https://www.reddit.com/r/${esc(subreddit)}/comments/${p.nativeId}/post/</link><guid isPermaLink="false">t3_${p.nativeId}</guid>
<pubDate>${new Date(p.created).toUTCString()}</pubDate><dc:creator>${esc(p.author || "unknown")}</dc:creator><description>${esc(`<p>${esc(p.content)}</p>`)}</description></item>`,
  )
  .join("\n")}
</channel></rss>`;
  const route = (url: URL, req: import("node:http").IncomingMessage): RouteAnswer => {
    if (url.pathname !== `/r/${subreddit}/.rss`) return { status: 404, body: "not found" };
    const etag = `"v${version}"`;
    if (req.headers["if-none-match"] === etag) {
      notModified += 1;
      return { status: 304, body: "", headers: { etag } };
    }
    return {
      status: 200,
      body: render(),
      headers: { "content-type": "application/rss+xml; charset=utf-8", etag, "last-modified": modified.toUTCString() },
    };
  };
  const server = await startPoliteServer(route);
  return {
    ...server,
    get notModified() {
      return notModified;
    },
    publish(posts) {
      entries = [...[...posts].reverse(), ...entries].slice(0, window);
      version += 1;
      modified = new Date();
    },
    edit(id, content) {
      entries = entries.map((p) => (p.id === id ? { ...p, content } : p));
      version += 1;
      modified = new Date();
    },
  };
}
