/**
 * A faithful local stand-in for Reddit's OAuth API, serving real submissions of the Reddit
 * top-2013 corpus as a subreddit's newest posts. Shapes follow Reddit's API documentation
 * (reddit.com/dev/api, github.com/reddit-archive/reddit/wiki/OAuth2 and /API): `POST
 * /api/v1/access_token` with HTTP basic auth (client id:secret) and `grant_type=
 * client_credentials` answers `{access_token, token_type: "bearer", expires_in, scope}` (401
 * `{message: "Unauthorized", error: 401}` for bad credentials); `GET /r/{sub}/new?limit=&after=`
 * with `Authorization: bearer <token>` answers a Listing `{kind: "Listing", data: {after, dist,
 * modhash, geo_filter, children: [{kind: "t3", data: {id, name, title, selftext, author,
 * subreddit, score, num_comments, created_utc, permalink, url, edited, ...}}], before}}`, newest
 * first, and every answer carries `X-Ratelimit-Used`, `X-Ratelimit-Remaining` and
 * `X-Ratelimit-Reset` (seconds until the window resets). Submission ids are base36 and grow with
 * time, so the corpus posts are published in id order. The fake records a violation for a request
 * with an expired token or one made with no requests left before the reset (answered 429), on
 * top of the shared checks in polite-server.ts.
 */
import type http from "node:http";
import type { Post } from "../../src/model/post.js";
import type { Manners, PoliteServer, RouteAnswer } from "./polite-server.js";
import { startPoliteServer } from "./polite-server.js";

/** A submission as the API returns it in `data`. */
export type RedditThing = Record<string, unknown> & { id: string };

/** The running fake. */
export interface FakeReddit extends PoliteServer {
  things: RedditThing[];
  /** Publishes the next `count` corpus posts (in id order), created at `at` ms. */
  publish(count: number, at?: number): RedditThing[];
  edit(id: string, selftext: string): void;
  remove(id: string): void;
  /** Invalidates every token issued, as a revoked or early-expired token. */
  revokeTokens(): void;
  tokensIssued: number;
}

/** Options: the app's credentials, token lifetime, rate-limit window. */
export interface FakeRedditOptions {
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds?: number;
  windowRequests?: number;
  windowSeconds?: number;
  manners?: Manners;
}

/** Starts the fake for subreddit `sub`, with corpus `posts` to publish. */
export async function startFakeReddit(
  sub: string,
  posts: readonly Post[],
  options: FakeRedditOptions,
): Promise<FakeReddit> {
  const byId = [...posts].sort((a, b) => Number.parseInt(a.nativeId, 36) - Number.parseInt(b.nativeId, 36));
  const things: RedditThing[] = [];
  const tokens = new Map<string, number>();
  const violations: string[] = [];
  let nextCorpus = 0;
  let issued = 0;
  const ttl = options.tokenTtlSeconds ?? 86_400;
  const perWindow = options.windowRequests ?? 1000;
  const windowMs = (options.windowSeconds ?? 600) * 1000;
  let windowStart = Date.now();
  let used = 0;
  const json = (value: unknown, status = 200, headers?: Record<string, string>): RouteAnswer => ({
    status,
    body: JSON.stringify(value),
    ...(headers === undefined ? {} : { headers }),
  });
  const unauthorized = (): RouteAnswer => json({ message: "Unauthorized", error: 401 }, 401);

  const token = (req: http.IncomingMessage): RouteAnswer => {
    const expected = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString("base64")}`;
    if (req.method !== "POST") return json({ message: "Method Not Allowed", error: 405 }, 405);
    if (req.headers.authorization !== expected) return unauthorized();
    if (!String(req.headers["content-type"]).startsWith("application/x-www-form-urlencoded"))
      return json({ error: "unsupported_grant_type" }, 400);
    issued += 1;
    const access = `fake-token-${issued}`;
    tokens.set(access, Date.now() + ttl * 1000);
    return json({ access_token: access, token_type: "bearer", expires_in: ttl, scope: "*" });
  };

  const listing = (url: URL, req: http.IncomingMessage): RouteAnswer => {
    const auth = /^bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const expires = auth === undefined ? undefined : tokens.get(auth);
    if (expires === undefined) return unauthorized();
    if (expires <= Date.now()) {
      violations.push(`a request with a token that expired ${Date.now() - expires} ms before`);
      return unauthorized();
    }
    const now = Date.now();
    if (now >= windowStart + windowMs) {
      windowStart = now;
      used = 0;
    }
    const reset = Math.max(0, Math.ceil((windowStart + windowMs - now) / 1000));
    if (used >= perWindow) {
      // Requests landing in the last fraction of a second before the reset are not the client's fault.
      if (windowStart + windowMs - now > 200)
        violations.push(`a request with no requests left, ${windowStart + windowMs - now} ms before the reset`);
      return json({ message: "Too Many Requests", error: 429 }, 429, { "retry-after": String(reset) });
    }
    used += 1;
    const headers = {
      "x-ratelimit-used": String(used),
      "x-ratelimit-remaining": `${perWindow - used}.0`,
      "x-ratelimit-reset": String(reset),
    };
    const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 25));
    const after = url.searchParams.get("after");
    const newest = [...things].sort(
      (a, b) =>
        (b["created_utc"] as number) - (a["created_utc"] as number) ||
        Number.parseInt(b.id, 36) - Number.parseInt(a.id, 36),
    );
    const start = after === null ? 0 : newest.findIndex((t) => t["name"] === after) + 1;
    const page = newest.slice(start, start + limit);
    const more = start + limit < newest.length;
    return json(
      {
        kind: "Listing",
        data: {
          after: more && page.length > 0 ? page[page.length - 1]!["name"] : null,
          dist: page.length,
          modhash: null,
          geo_filter: "",
          children: page.map((data) => ({ kind: "t3", data })),
          before: null,
        },
      },
      200,
      headers,
    );
  };

  const route = (url: URL, req: http.IncomingMessage): RouteAnswer => {
    if (url.pathname === "/api/v1/access_token") return token(req);
    if (url.pathname === `/r/${sub}/new`) return listing(url, req);
    return json({ message: "Not Found", error: 404 }, 404);
  };
  const server = await startPoliteServer(route, options.manners);
  const find = (id: string): RedditThing => {
    const t = things.find((x) => x.id === id);
    if (t === undefined) throw new Error(`no submission ${id}`);
    return t;
  };
  return {
    ...server,
    get violations() {
      return [...server.violations, ...violations];
    },
    things,
    get tokensIssued() {
      return issued;
    },
    publish(count, at = Date.now()) {
      const made: RedditThing[] = [];
      for (let i = 0; i < count && nextCorpus < byId.length; i += 1) {
        const p = byId[nextCorpus++]!;
        const permalink = new URL(p.url).pathname;
        const t: RedditThing = {
          id: p.nativeId,
          name: `t3_${p.nativeId}`,
          title: p.title,
          selftext: p.content,
          author: p.author || "[deleted]",
          subreddit: p.subforum,
          subreddit_name_prefixed: `r/${p.subforum}`,
          subreddit_type: "public",
          score: p.upvotes,
          ups: p.upvotes,
          upvote_ratio: 0.97,
          num_comments: p.comments,
          created_utc: Math.floor(at / 1000),
          permalink,
          url: `https://www.reddit.com${permalink}`,
          is_self: true,
          over_18: false,
          edited: false,
          stickied: false,
          removed_by_category: null,
          domain: `self.${p.subforum}`,
        };
        things.push(t);
        made.push(t);
      }
      return made;
    },
    edit(id, selftext) {
      const t = find(id);
      t["selftext"] = selftext;
      t["edited"] = Date.now() / 1000;
    },
    remove(id) {
      const t = find(id);
      t["selftext"] = "[removed]";
      t["removed_by_category"] = "moderator";
    },
    revokeTokens() {
      tokens.clear();
    },
  };
}
