/**
 * The Reddit source through OAuth: an app-only token (client credentials grant), then
 * `/r/{sub}/new?limit=100&after=...` Listings, newest first, down to the posts already written.
 * Submissions become posts through the dump readers' own mapping (`redditSubmission`), so a post
 * first loaded from an Arctic Shift / Pushshift dump and later seen live is one post. Reddit's
 * rate-limit headers are obeyed: with `X-Ratelimit-Remaining` below one, no request is made
 * until `X-Ratelimit-Reset` seconds have passed (or the poll ends with that retry time). A 401
 * means the token expired early: it is renewed once. Each page's batch carries the `after`
 * fullname to continue from, so a cut-off or killed walk resumes where it stopped.
 */
import { redditSubmission } from "../../ingest/readers/reddit-post.js";
import type { Post } from "../../model/post.js";
import { SourceRequestError } from "../http/http-error.js";
import type { HttpAnswer } from "../http/polite-client.js";
import type { Connector, PollContext, SourceBatch } from "../source.js";
import type { RedditCursor } from "./reddit-cursor.js";
import { formatRedditCursor, parseRedditCursor, redditIdValue } from "./reddit-cursor.js";
import { noteRedditLimit, respectRedditLimit } from "./reddit-ratelimit.js";
import type { RedditSettings } from "./reddit-settings.js";
import { redditSettings } from "./reddit-settings.js";
import { dropRedditToken, redditToken } from "./reddit-token.js";

/** Posts per Listing page (the API's maximum). */
export const REDDIT_PAGE_SIZE = 100;

/** A Listing (`{kind: "Listing", data: {after, children: [{kind: "t3", data}]}}`). */
interface Listing {
  kind?: string;
  data?: { after?: string | null; children?: { kind?: string; data?: Record<string, unknown> }[] };
}

/** The User-Agent Reddit's API rules ask for: platform, app, version and the responsible user. */
function userAgent(settings: RedditSettings): Record<string, string> {
  return settings.username === undefined
    ? {}
    : { "user-agent": `server:threadsight-sync:0.1 (by /u/${settings.username})` };
}

async function* pollSubreddit(context: PollContext): AsyncGenerator<SourceBatch> {
  const settings = redditSettings(context.settings);
  const saved = parseRedditCursor(context.cursor);
  const ua = userAgent(settings);
  const startedAt = context.now();
  const floor = saved === undefined ? 0 : redditIdValue(saved.maxId);
  const checkedAt = saved?.checkedAt ?? startedAt;
  const walk = saved?.resume ?? { after: "", top: saved?.maxId ?? "0", startedAt };
  let after = walk.after;
  let budget = context.maxItems;
  let fresh = saved === undefined;

  const listing = async (): Promise<HttpAnswer<Listing>> => {
    const query = new URLSearchParams({ limit: String(REDDIT_PAGE_SIZE), raw_json: "1" });
    if (after !== "") query.set("after", after);
    const url = `${settings.apiUrl}/r/${settings.subreddit}/new?${query}`;
    for (let renewed = false; ; renewed = true) {
      const token = await redditToken(context.http, settings, ua, context.now);
      respectRedditLimit(settings.clientId, context.http, "api", context.now());
      try {
        return await context.http.getJson<Listing>(url, {
          headers: { ...ua, authorization: `Bearer ${token}` },
          key: "api",
        });
      } catch (err) {
        if (renewed || !(err instanceof SourceRequestError) || err.status !== 401) throw err;
        dropRedditToken(settings);
      }
    }
  };

  while (budget > 0) {
    context.signal.throwIfAborted();
    const answer = await listing();
    // Reddit's window: with no request left, wait out the reset before the next one.
    noteRedditLimit(settings.clientId, answer.headers, context.now());
    const children = answer.body?.data?.children ?? [];
    budget -= children.length;
    const posts: Post[] = [];
    let older = children.length > 0;
    for (const [i, child] of children.entries()) {
      if (child.kind !== "t3" || child.data === undefined) continue;
      const id = typeof child.data["id"] === "string" ? child.data["id"] : undefined;
      if (id === undefined) continue;
      const value = redditIdValue(id);
      if (value > redditIdValue(walk.top)) walk.top = id;
      if (value > floor) older = false;
      const edited = typeof child.data["edited"] === "number" && child.data["edited"] * 1000 > checkedAt;
      const wanted = fresh ? i < settings.backlog : value > floor || edited;
      if (!wanted) continue;
      const item = redditSubmission(child.data, 0);
      if ("post" in item) posts.push(item.post);
    }
    const next = answer.body?.data?.after ?? null;
    const done = fresh || older || next === null || children.length === 0;
    const cursor: RedditCursor = done
      ? { maxId: walk.top, checkedAt: walk.startedAt, resume: undefined }
      : { maxId: saved?.maxId ?? "0", checkedAt, resume: { ...walk, after: next! } };
    yield { posts, cursor: formatRedditCursor(cursor), seen: children.length };
    if (done) return;
    after = next!;
    fresh = false;
  }
  context.log(`the walk stopped at the item cap; it continues after ${after} next poll`);
}

/** The connector registered for kind "reddit". */
export const redditConnector: Connector = {
  kind: "reddit",
  validate: redditSettings,
  describe(settings) {
    const s = redditSettings(settings);
    return `${s.apiUrl}/r/${s.subreddit} (OAuth app ${s.clientId})`;
  },
  poll: pollSubreddit,
};
