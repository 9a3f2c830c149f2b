/**
 * A faithful local stand-in for the Hacker News APIs, serving real stories from the HN corpus.
 * Shapes follow the official Firebase API documentation (github.com/HackerNews/API):
 * `/v0/maxitem.json` is a bare integer, `/v0/item/<id>.json` an item object (`id, type, by,
 * time, title, text, url, score, descendants`, plus `deleted`/`dead` flags) or `null` for an id
 * not (yet) known, `/v0/updates.json` is `{"items": [...], "profiles": [...]}`. The Algolia HN
 * Search API (hn.algolia.com/api) answers `/api/v1/search_by_date` with `{hits, nbHits, page,
 * nbPages, hitsPerPage, processingTimeMS, query, params}` and hits carrying `objectID, title,
 * url, author, points, num_comments, story_text, created_at, created_at_i, _tags`.
 * Stories "appear" when a test publishes them (time = now), each followed by a comment item, so
 * the walk meets non-posts as on the real site. Faults come from polite-server.ts.
 */
import type { Post } from "../../src/model/post.js";
import type { Manners, PoliteServer, RouteAnswer } from "./polite-server.js";
import { startPoliteServer } from "./polite-server.js";

/** An item as the Firebase API returns it. */
export type HnItem = Record<string, unknown> & { id: number };

/** The running fake. */
export interface FakeHn extends PoliteServer {
  items: Map<number, HnItem>;
  readonly maxItem: number;
  /** Publishes the next `count` corpus stories (each followed by a comment); returns their items. */
  publish(count: number, at?: number): HnItem[];
  /** Changes an item and lists it in updates.json. */
  edit(id: number, fields: Partial<HnItem>): void;
  /** Makes the next id(s) unknown (null) while maxitem is already past them. */
  reserveNull(): number;
}

/** Starts the fake with `stories` to publish from, ids from `firstId`. */
export async function startFakeHn(
  stories: readonly Post[],
  options: { firstId?: number; manners?: Manners } = {},
): Promise<FakeHn> {
  const items = new Map<number, HnItem>();
  const updated: number[] = [];
  let maxItem = (options.firstId ?? 40_000_000) - 1;
  let nextStory = 0;
  const json = (value: unknown): RouteAnswer => ({ status: 200, body: JSON.stringify(value) });
  const hit = (item: HnItem): Record<string, unknown> => ({
    created_at: new Date((item["time"] as number) * 1000).toISOString(),
    title: item["title"],
    url: item["url"] ?? null,
    author: item["by"],
    points: item["score"],
    story_text: item["text"] ?? null,
    comment_text: null,
    num_comments: item["descendants"],
    story_id: null,
    story_title: null,
    story_url: null,
    parent_id: null,
    created_at_i: item["time"],
    _tags: ["story", `author_${String(item["by"])}`, `story_${item.id}`],
    objectID: String(item.id),
  });
  const route = (url: URL): RouteAnswer => {
    const p = url.pathname;
    if (p === "/v0/maxitem.json") return json(maxItem);
    if (p === "/v0/updates.json") return json({ items: updated.slice(-100).reverse(), profiles: [] });
    const m = /^\/v0\/item\/(\d+)\.json$/.exec(p);
    if (m !== null) return json(items.get(Number(m[1])) ?? null);
    if (p === "/api/v1/search_by_date") {
      const filters = url.searchParams.get("numericFilters") ?? "";
      const lo = Number(/created_at_i>(\d+)/.exec(filters)?.[1] ?? 0);
      const hi = Number(/created_at_i<(\d+)/.exec(filters)?.[1] ?? Number.MAX_SAFE_INTEGER);
      const perPage = Number(url.searchParams.get("hitsPerPage") ?? 20);
      const page = Number(url.searchParams.get("page") ?? 0);
      const all = [...items.values()]
        .filter(
          (i) =>
            i["type"] === "story" && i["deleted"] !== true && (i["time"] as number) > lo && (i["time"] as number) < hi,
        )
        .sort((a, b) => (b["time"] as number) - (a["time"] as number) || b.id - a.id);
      const nbPages = Math.ceil(all.length / perPage);
      return json({
        hits: all.slice(page * perPage, (page + 1) * perPage).map(hit),
        nbHits: all.length,
        page,
        nbPages,
        hitsPerPage: perPage,
        exhaustiveNbHits: true,
        processingTimeMS: 1,
        query: "",
        params: url.search.slice(1),
      });
    }
    return { status: 404, body: '{"error":"Permission denied"}' };
  };
  const server = await startPoliteServer(route, options.manners);
  return {
    ...server,
    items,
    get maxItem() {
      return maxItem;
    },
    publish(count, at = Date.now()) {
      const made: HnItem[] = [];
      for (let i = 0; i < count && nextStory < stories.length; i += 1) {
        const s = stories[nextStory++]!;
        const story: HnItem = {
          id: ++maxItem,
          type: "story",
          by: s.author,
          time: Math.floor(at / 1000),
          title: s.title,
          url: `https://example.org/${maxItem}`,
          score: s.upvotes,
          descendants: s.comments,
          kids: [maxItem + 1],
        };
        items.set(story.id, story);
        const comment: HnItem = {
          id: ++maxItem,
          type: "comment",
          by: "commenter",
          time: Math.floor(at / 1000),
          parent: story.id,
          text: "<p>a comment, not a post</p>",
        };
        items.set(comment.id, comment);
        made.push(story);
      }
      return made;
    },
    edit(id, fields) {
      const item = items.get(id);
      if (item === undefined) throw new Error(`no item ${id}`);
      items.set(id, { ...item, ...fields });
      updated.push(id);
    },
    reserveNull() {
      maxItem += 1;
      return maxItem;
    },
  };
}
