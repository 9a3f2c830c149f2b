/**
 * A faithful local stand-in for a Lemmy instance's HTTP API v3, hosting real Reddit corpus
 * submissions as a community's posts. Shapes follow Lemmy's API types (lemmy-js-client,
 * `GetPosts` / `GetPostsResponse` / `PostView` in crates/api_common and db_views): `GET
 * /api/v3/post/list?sort=New&community_name=&limit=&page=` (or `page_cursor=`) answers
 * `{posts: [{post: {id, name, url, body, creator_id, community_id, removed, locked, published,
 * updated, deleted, nsfw, ap_id, local, language_id, featured_community, featured_local},
 * creator: {id, name, display_name, actor_id, local, banned, bot_account, ...}, community: {id,
 * name, title, actor_id, local, ...}, counts: {post_id, comments, score, upvotes, downvotes,
 * published, newest_comment_time}, subscribed, saved, read, creator_blocked, unread_comments}],
 * next_page}`, newest `published` first. Version "0.19" returns `next_page` cursors and times
 * with a zone; "0.18" pages by number and writes times without one, as those versions did.
 * Errors are `{error: "<snake_case kind>"}` (400 `couldnt_find_community`, 429 for the rate
 * limit). A deleted post stays listed with `deleted: true`, as 0.18 listed it to clients.
 * Faults (429 with Retry-After, 5xx, slow, truncated) come from polite-server.ts.
 */
import type { Post } from "../../src/model/post.js";
import type { Manners, PoliteServer, RouteAnswer } from "./polite-server.js";
import { startPoliteServer } from "./polite-server.js";

/** A post the fake holds. */
export interface LemmyFakePost {
  id: number;
  name: string;
  body: string;
  author: string;
  published: number;
  updated: number | undefined;
  deleted: boolean;
  score: number;
  comments: number;
  apId: string;
  /** Corpus id of the post it was made from. */
  from: string;
}

/** The running fake. */
export interface FakeLemmy extends PoliteServer {
  posts: LemmyFakePost[];
  /** Publishes the next `count` corpus posts, published at `at` ms (default now). */
  publish(count: number, at?: number): LemmyFakePost[];
  /** A post federated from `origin`, arriving now with its original (older) `published`. */
  federate(origin: string, originId: number, publishedAt: number): LemmyFakePost;
  edit(id: number, body: string): void;
  remove(id: number): void;
}

/** Starts an instance hosting `community`, with corpus `source` posts to publish. */
export async function startFakeLemmy(
  community: string,
  source: readonly Post[],
  options: { version?: "0.18" | "0.19"; manners?: Manners } = {},
): Promise<FakeLemmy> {
  const version = options.version ?? "0.19";
  const posts: LemmyFakePost[] = [];
  let nextId = 5000;
  let nextCorpus = 0;
  let host = "";
  const time = (ms: number): string => {
    const iso = new Date(ms).toISOString();
    return version === "0.19" ? iso : iso.replace("Z", "").replace(/\.(\d{3})$/, ".$1000");
  };
  const json = (value: unknown, status = 200): RouteAnswer => ({ status, body: JSON.stringify(value) });
  const view = (p: LemmyFakePost): Record<string, unknown> => ({
    post: {
      id: p.id,
      name: p.name,
      url: null,
      body: p.deleted ? "" : p.body,
      creator_id: 10,
      community_id: 3,
      removed: false,
      locked: false,
      published: time(p.published),
      updated: p.updated === undefined ? null : time(p.updated),
      deleted: p.deleted,
      nsfw: false,
      thumbnail_url: null,
      ap_id: p.apId,
      local: p.apId.startsWith(`http://${host}/`),
      language_id: 37,
      featured_community: false,
      featured_local: false,
    },
    creator: {
      id: 10,
      name: p.author,
      display_name: null,
      banned: false,
      published: time(0),
      actor_id: `http://${host}/u/${p.author}`,
      local: true,
      deleted: false,
      bot_account: false,
      instance_id: 1,
    },
    community: {
      id: 3,
      name: community,
      title: community,
      removed: false,
      published: time(0),
      nsfw: false,
      actor_id: `http://${host}/c/${community}`,
      local: true,
      hidden: false,
      posting_restricted_to_mods: false,
      instance_id: 1,
    },
    creator_banned_from_community: false,
    creator_is_moderator: false,
    creator_is_admin: false,
    counts: {
      post_id: p.id,
      comments: p.comments,
      score: p.score,
      upvotes: p.score,
      downvotes: 0,
      published: time(p.published),
      newest_comment_time: time(p.published),
    },
    subscribed: "NotSubscribed",
    saved: false,
    read: false,
    hidden: false,
    creator_blocked: false,
    my_vote: null,
    unread_comments: p.comments,
  });
  const route = (url: URL): RouteAnswer => {
    if (url.pathname !== "/api/v3/post/list") return json({ error: "not_found" }, 404);
    if (url.searchParams.get("community_name") !== community) return json({ error: "couldnt_find_community" }, 400);
    if (url.searchParams.get("sort") !== "New") return json({ error: "invalid_sort" }, 400);
    const limit = Math.min(50, Number(url.searchParams.get("limit") ?? 10));
    const cursor = url.searchParams.get("page_cursor");
    if (cursor !== null && version === "0.18") return json({ error: "unknown_param" }, 400);
    // A 0.19 page cursor names the post the page starts after ("P" and a hex id, as Lemmy's do).
    const sorted = [...posts].sort((a, b) => b.published - a.published || b.id - a.id);
    let start: number;
    if (cursor !== null) {
      const after = Number.parseInt(cursor.slice(1), 16);
      start = sorted.findIndex((p) => p.id === after) + 1;
    } else start = (Number(url.searchParams.get("page") ?? 1) - 1) * limit;
    const slice = sorted.slice(start, start + limit);
    const body: Record<string, unknown> = { posts: slice.map(view) };
    if (version === "0.19" && slice.length === limit)
      body["next_page"] = `P${slice[slice.length - 1]!.id.toString(16)}`;
    return json(body);
  };
  const server = await startPoliteServer(route, options.manners);
  host = new URL(server.url).host;
  const find = (id: number): LemmyFakePost => {
    const p = posts.find((x) => x.id === id);
    if (p === undefined) throw new Error(`no post ${id}`);
    return p;
  };
  return {
    ...server,
    posts,
    publish(count, at = Date.now()) {
      const made: LemmyFakePost[] = [];
      for (let i = 0; i < count && nextCorpus < source.length; i += 1) {
        const s = source[nextCorpus++]!;
        const id = nextId++;
        const p: LemmyFakePost = {
          id,
          name: s.title,
          body: s.content,
          author: (s.author || "anonymous").replace(/[^A-Za-z0-9_]/g, "_"),
          published: at,
          updated: undefined,
          deleted: false,
          score: s.upvotes,
          comments: s.comments,
          apId: `http://${host}/post/${id}`,
          from: s.id,
        };
        posts.push(p);
        made.push(p);
      }
      return made;
    },
    federate(origin, originId, publishedAt) {
      const s = source[nextCorpus++]!;
      const p: LemmyFakePost = {
        id: nextId++,
        name: s.title,
        body: s.content,
        author: "remote_user",
        published: publishedAt,
        updated: undefined,
        deleted: false,
        score: s.upvotes,
        comments: s.comments,
        apId: `https://${origin}/post/${originId}`,
        from: s.id,
      };
      posts.push(p);
      return p;
    },
    edit(id, body) {
      const p = find(id);
      p.body = body;
      p.updated = Date.now();
    },
    remove(id) {
      find(id).deleted = true;
    },
  };
}
