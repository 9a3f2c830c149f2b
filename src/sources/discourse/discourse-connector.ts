/**
 * The Discourse source, for any forum by base URL. Each poll pages through `/latest.json`
 * (`topic_list.topics`, newest bump first, following `more_topics_url`) down to the last bump it
 * wrote; every topic bumped since (new, replied to, or edited and bumped) is read from
 * `/t/{id}.json` for its first post. When the item cap cuts the list off before that point (a
 * long outage, a very busy forum), the new topics further down are caught up on, next poll,
 * newest first through `/posts.json?before=`, whose first posts (`post_number` 1) name them.
 * The cursor advances only with the poll's last batch, so a poll killed midway is read again,
 * never skipped. 429 answers with `Retry-After` are waited out by the polite client.
 */
import type { Post } from "../../model/post.js";
import { SourceRequestError } from "../http/http-error.js";
import type { HttpAnswer } from "../http/polite-client.js";
import type { Connector, PollContext, SourceBatch } from "../source.js";
import type { DiscourseCursor, DiscourseGap } from "./discourse-cursor.js";
import { formatDiscourseCursor, parseDiscourseCursor } from "./discourse-cursor.js";
import type { DiscourseSettings } from "./discourse-settings.js";
import { discourseSettings } from "./discourse-settings.js";
import { topicPost } from "./discourse-topic.js";

/** Topics read from `/t/{id}.json` per written batch. */
export const DISCOURSE_BATCH = 20;

/** The `/latest.json` envelope, as far as it is read. */
interface LatestList {
  topic_list?: { topics?: unknown[]; more_topics_url?: string };
}

interface ListedTopic {
  id: number;
  bumpedAt: string;
  pinned: boolean;
}

/** The headers of an authenticated request (Discourse's documented user API key headers). */
function authHeaders(settings: DiscourseSettings): Record<string, string> {
  return settings.apiKey === undefined
    ? {}
    : { "api-key": settings.apiKey, "api-username": settings.apiUsername ?? "system" };
}

/** `/latest?page=1` (as `more_topics_url` gives it) as the JSON address of that page. */
export function jsonPageUrl(baseUrl: string, more: string): string {
  const url = new URL(more, `${baseUrl}/`);
  if (!url.pathname.endsWith(".json")) url.pathname = `${url.pathname}.json`;
  return url.toString();
}

function listed(raw: unknown): ListedTopic | undefined {
  const t = raw as Record<string, unknown>;
  const bumped = typeof t["bumped_at"] === "string" ? t["bumped_at"] : t["created_at"];
  if (typeof t["id"] !== "number" || typeof bumped !== "string" || Number.isNaN(Date.parse(bumped))) return undefined;
  return { id: t["id"], bumpedAt: bumped, pinned: t["pinned"] === true || t["pinned_globally"] === true };
}

const later = (a: string, b: string): boolean => Date.parse(a) > Date.parse(b);

async function* pollForum(context: PollContext): AsyncGenerator<SourceBatch> {
  const settings = discourseSettings(context.settings);
  const headers = authHeaders(settings);
  const saved = parseDiscourseCursor(context.cursor);
  const budget = { items: context.maxItems };
  let slugs: Map<number, string> | undefined;

  const categorySlug = (id: unknown): string =>
    (typeof id === "number" ? slugs?.get(id) : undefined) ??
    (typeof id === "number" ? `category-${id}` : "uncategorized");

  const loadSlugs = async (): Promise<void> => {
    if (slugs !== undefined) return;
    slugs = new Map();
    const answer = await context.http.getJson<{ category_list?: { categories?: Record<string, unknown>[] } }>(
      `${settings.baseUrl}/categories.json?include_subcategories=true`,
      { headers },
    );
    const visit = (cats: Record<string, unknown>[] | undefined): void => {
      for (const c of cats ?? []) {
        if (typeof c["id"] === "number") slugs!.set(c["id"], String(c["slug"] ?? c["name"] ?? c["id"]));
        visit(c["subcategory_list"] as Record<string, unknown>[] | undefined);
      }
    };
    visit(answer.body?.category_list?.categories);
  };

  /** Reads topics; a topic gone since it was listed (404, or 403 once made private) is skipped. */
  const readTopics = async (ids: number[]): Promise<Post[]> => {
    await loadSlugs();
    const read = await Promise.all(
      ids.map(async (id) => {
        try {
          const answer = await context.http.getJson<Record<string, unknown>>(`${settings.baseUrl}/t/${id}.json`, {
            headers,
          });
          return answer.body === undefined ? undefined : topicPost(answer.body, settings, categorySlug);
        } catch (err) {
          if (err instanceof SourceRequestError && (err.status === 404 || err.status === 403 || err.status === 410)) {
            context.log(`topic ${id} is gone (HTTP ${err.status}); skipped`);
            return undefined;
          }
          throw err;
        }
      }),
    );
    return read.filter((p): p is Post => p !== undefined);
  };

  let cursor: DiscourseCursor | undefined = saved;

  // 1. The catch-up a previous poll owed: first posts of new topics, newest first.
  if (cursor?.gap !== undefined) {
    let gap: DiscourseGap | undefined = cursor.gap;
    while (gap !== undefined && budget.items > 0) {
      context.signal.throwIfAborted();
      const query: string = gap.before === null ? "" : `?before=${gap.before}`;
      const answer: HttpAnswer<{ latest_posts?: Record<string, unknown>[] }> = await context.http.getJson(
        `${settings.baseUrl}/posts.json${query}`,
        { headers },
      );
      const page: Record<string, unknown>[] = answer.body?.latest_posts ?? [];
      budget.items -= page.length;
      const ids: number[] = [];
      let reached: boolean = page.length === 0;
      let lowest: number = gap.before ?? Number.MAX_SAFE_INTEGER;
      for (const p of page) {
        if (typeof p["id"] === "number") lowest = Math.min(lowest, p["id"]);
        if (p["post_number"] !== 1 || typeof p["topic_id"] !== "number") continue;
        if (p["topic_id"] <= gap.after) reached = true;
        else ids.push(p["topic_id"]);
      }
      gap = reached || lowest === gap.before ? undefined : { after: gap.after, before: lowest };
      cursor = { ...cursor, gap };
      yield { posts: await readTopics(ids), cursor: formatDiscourseCursor(cursor), seen: page.length };
    }
  }

  // 2. The latest list, down to the last bump written.
  const since = cursor?.bumpedAt;
  const topics: ListedTopic[] = [];
  let url: string | undefined = `${settings.baseUrl}/latest.json`;
  let reachedCursor = false;
  while (url !== undefined && budget.items > 0) {
    context.signal.throwIfAborted();
    const answer: HttpAnswer<LatestList> = await context.http.getJson(url, { headers });
    const list: LatestList["topic_list"] = answer.body?.topic_list;
    for (const raw of list?.topics ?? []) {
      const t = listed(raw);
      if (t === undefined) continue;
      budget.items -= 1;
      if (since !== undefined && !later(t.bumpedAt, since)) {
        // Pinned topics sit at the top whatever their bump; only an unpinned one marks the end.
        if (!t.pinned) reachedCursor = true;
        continue;
      }
      topics.push(t);
    }
    // A fresh source looks at one page only: it starts from now (plus its backlog).
    if (since === undefined || reachedCursor) break;
    url = list?.more_topics_url === undefined ? undefined : jsonPageUrl(settings.baseUrl, list.more_topics_url);
  }
  const cutOff = since !== undefined && !reachedCursor && url !== undefined;

  const wanted = since === undefined ? topics.filter((t) => !t.pinned).slice(0, settings.backlog) : topics;
  const newest = topics.reduce<string | undefined>(
    (a, t) => (a === undefined || later(t.bumpedAt, a) ? t.bumpedAt : a),
    since,
  );
  const maxId = topics.reduce((a, t) => Math.max(a, t.id), cursor?.maxTopicId ?? 0);
  const next: DiscourseCursor = {
    bumpedAt: newest ?? new Date(context.now()).toISOString(),
    maxTopicId: maxId,
    // Owed catch-up carries over; a new cut-off owes the topics above the old highest id.
    gap: cursor?.gap ?? (cutOff ? { after: cursor?.maxTopicId ?? 0, before: null } : undefined),
  };
  if (cutOff) context.log(`the latest list was cut off at the item cap; new topics below are caught up next poll`);
  const oldest = [...wanted].sort((a, b) => Date.parse(a.bumpedAt) - Date.parse(b.bumpedAt) || a.id - b.id);
  if (oldest.length === 0) {
    yield { posts: [], cursor: formatDiscourseCursor(next), seen: topics.length };
    return;
  }
  let highest = cursor?.maxTopicId ?? 0;
  for (let i = 0; i < oldest.length; i += DISCOURSE_BATCH) {
    context.signal.throwIfAborted();
    const slice = oldest.slice(i, i + DISCOURSE_BATCH);
    const posts = await readTopics(slice.map((t) => t.id));
    highest = Math.max(highest, ...slice.map((t) => t.id));
    const last = i + DISCOURSE_BATCH >= oldest.length;
    // Oldest bump first, so every topic bumped up to this batch's last is written; a millisecond
    // back, so a topic bumped in that same instant but in the next batch is not skipped.
    const through: DiscourseCursor = {
      bumpedAt: new Date(Date.parse(slice[slice.length - 1]!.bumpedAt) - 1).toISOString(),
      maxTopicId: highest,
      gap: next.gap,
    };
    yield {
      posts,
      cursor: formatDiscourseCursor(last ? next : through),
      seen: last ? topics.length - i : slice.length,
    };
  }
}

/** The connector registered for kind "discourse". */
export const discourseConnector: Connector = {
  kind: "discourse",
  validate: discourseSettings,
  describe(settings) {
    const s = discourseSettings(settings);
    return `${s.baseUrl} (ids discourse:${s.host}:<topic id>${s.apiKey === undefined ? "" : ", with an API key"})`;
  },
  poll: pollForum,
};
