/**
 * The Firebase side of the Hacker News source: walk item ids up from the cursor to
 * `/v0/maxitem.json`, keep the stories (the dump reader's rules: comments, jobs and polls are not
 * posts; deleted and dead items are dropped), and refresh stories already walked that
 * `/v0/updates.json` lists, so their score, comment count and any edit reach the index.
 */

import { hnItem } from "../../ingest/readers/hn-json.js";
import type { Post } from "../../model/post.js";
import type { PollContext, SourceBatch } from "../source.js";
import type { HnCursor } from "./hn-cursor.js";
import { formatHnCursor } from "./hn-cursor.js";
import type { HnSettings } from "./hn-settings.js";

/** Item ids fetched (concurrently, within the client's limits) per batch. */
export const HN_WALK_CHUNK = 100;
/**
 * A missing (null) item this far below maxitem is taken as gone; nearer the top it may just not
 * have propagated yet, so the walk stops there and tries it again next poll.
 */
export const HN_NULL_ITEM_GRACE = 50;

/** What the API returns for one item id (null for an id it does not know yet). */
type HnItemJson = Record<string, unknown> | null;

/** The story in `item`, or undefined for a non-story, a deleted or dead item. */
function storyOf(item: HnItemJson): Post | undefined {
  if (item === null) return undefined;
  const read = hnItem(item, 0);
  return "post" in read ? read.post : undefined;
}

/** Walks new item ids; each batch's cursor points past the ids it covers. */
export async function* walkNewItems(
  context: PollContext,
  settings: HnSettings,
  cursor: HnCursor,
  budget: { items: number },
): AsyncGenerator<SourceBatch> {
  const { http } = context;
  const max = (await http.getJson<number>(`${settings.firebaseUrl}/v0/maxitem.json`)).body;
  if (typeof max !== "number" || !Number.isSafeInteger(max))
    throw new TypeError(`maxitem.json is not an item id: ${JSON.stringify(max)}`);
  let next = cursor.next ?? Math.max(1, max + 1 - settings.backlog);
  if (cursor.next === undefined) {
    // Fix the starting point before reading anything, so a kill during the first batch resumes
    // from the same place rather than from a later maxitem.
    cursor.next = next;
    yield { posts: [], cursor: formatHnCursor(cursor), seen: 0 };
  }
  while (next <= max && budget.items > 0) {
    context.signal.throwIfAborted();
    const count = Math.min(HN_WALK_CHUNK, max - next + 1, budget.items);
    const ids = Array.from({ length: count }, (_, i) => next + i);
    const items = await Promise.all(
      ids.map((id) =>
        http
          .getJson<HnItemJson>(`${settings.firebaseUrl}/v0/item/${id}.json`, { key: "item" })
          .then((a) => a.body ?? null),
      ),
    );
    // Stop at the first unknown id near the top: later ids are kept for the next poll too,
    // so the cursor never passes an item that has not appeared yet.
    let upTo = items.length;
    const firstNull = items.findIndex((item, i) => item === null && ids[i]! > max - HN_NULL_ITEM_GRACE);
    if (firstNull >= 0) upTo = firstNull;
    const posts: Post[] = [];
    for (const item of items.slice(0, upTo)) {
      const post = storyOf(item);
      if (post !== undefined) posts.push(post);
    }
    budget.items -= upTo;
    next += upTo;
    cursor.next = next;
    yield { posts, cursor: formatHnCursor(cursor), seen: upTo };
    if (upTo < items.length) break;
  }
}

/**
 * Re-reads the stories among `/v0/updates.json` items already walked (below the cursor): their
 * new score, comment count or edited text. Items not walked yet are left to the walk.
 */
export async function* refreshUpdated(
  context: PollContext,
  settings: HnSettings,
  cursor: HnCursor,
  budget: { items: number },
): AsyncGenerator<SourceBatch> {
  const updates = (await context.http.getJson<{ items?: unknown }>(`${settings.firebaseUrl}/v0/updates.json`)).body;
  const walked = cursor.next ?? 0;
  const ids = (Array.isArray(updates?.items) ? updates.items : [])
    .filter((id): id is number => Number.isSafeInteger(id) && (id as number) < walked)
    .slice(0, Math.max(0, budget.items));
  for (let start = 0; start < ids.length; start += HN_WALK_CHUNK) {
    context.signal.throwIfAborted();
    const chunk = ids.slice(start, start + HN_WALK_CHUNK);
    const items = await Promise.all(
      chunk.map((id) =>
        context.http
          .getJson<HnItemJson>(`${settings.firebaseUrl}/v0/item/${id}.json`, { key: "item" })
          .then((a) => a.body ?? null),
      ),
    );
    budget.items -= chunk.length;
    const posts = items.map(storyOf).filter((p): p is Post => p !== undefined);
    yield { posts, cursor: formatHnCursor(cursor), seen: chunk.length };
  }
}
