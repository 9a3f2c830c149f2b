/**
 * The Stack Exchange API 2.3 source: `/2.3/questions?sort=creation&order=asc&fromdate=...` pages
 * of questions with their bodies, oldest first, via `has_more`. It obeys the API's own rules:
 * a `backoff` field means no call to the same method for that many seconds; `quota_remaining`
 * of 0 means none at all until the daily quota resets (UTC midnight), so the poll stops there
 * with a retry time instead of being refused. Question ids are `stackexchange:<community>:<id>`,
 * as the dump reader makes them.
 */

import { count, text } from "../../ingest/field-values.js";
import { decodeEntities, markdownToText, singleLine } from "../../ingest/plain-text.js";
import type { Post } from "../../model/post.js";
import { postId } from "../../model/post.js";
import { SourceRequestError } from "../http/http-error.js";
import type { Connector, PollContext, SourceBatch } from "../source.js";
import type { SeSettings } from "./se-settings.js";
import { seSettings } from "./se-settings.js";

/** Questions per page (the API's maximum). */
export const SE_PAGE_SIZE = 100;

/** The API's common wrapper (api.stackexchange.com/docs/wrapper). */
interface SeWrapper {
  items?: Record<string, unknown>[];
  has_more?: boolean;
  quota_max?: number;
  quota_remaining?: number;
  backoff?: number;
}

/** Where the source stands: questions created at or after `fromdate` (epoch s), from `page`. */
interface SeCursor {
  fromdate: number;
  page: number;
}

function parseCursor(raw: string | undefined, now: number): SeCursor {
  if (raw === undefined) return { fromdate: Math.floor(now / 1000), page: 1 };
  const v = JSON.parse(raw) as SeCursor;
  if (!Number.isSafeInteger(v.fromdate) || !Number.isSafeInteger(v.page))
    throw new SourceRequestError("settings", `stored Stack Exchange cursor is unreadable: ${raw.slice(0, 100)}`);
  return v;
}

/** The next UTC midnight after `now`, when the daily quota resets. */
function nextUtcMidnight(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/** A question as the post the dump reader would make of it. */
function questionPost(q: Record<string, unknown>, settings: SeSettings): Post | undefined {
  const id = text(q["question_id"]);
  const title = text(q["title"]);
  const created = typeof q["creation_date"] === "number" ? q["creation_date"] * 1000 : undefined;
  if (id === undefined || title === undefined || created === undefined) return undefined;
  const nativeId = `${settings.community}:${id}`;
  const owner = q["owner"] as Record<string, unknown> | undefined;
  return {
    id: postId("stackexchange", nativeId),
    source: "stackexchange",
    nativeId,
    title: singleLine(decodeEntities(title)),
    content: markdownToText(typeof q["body"] === "string" ? q["body"] : "", { html: true }),
    subforum: settings.community,
    author: decodeEntities(text(owner?.["display_name"]) ?? ""),
    upvotes: count(q["score"]),
    comments: count(q["answer_count"]) + count(q["comment_count"]),
    created,
    url: text(q["link"]) ?? "",
  };
}

async function* pollQuestions(context: PollContext): AsyncGenerator<SourceBatch> {
  const settings = seSettings(context.settings);
  const cursor = parseCursor(context.cursor, context.now());
  let budget = context.maxItems;
  let newest = cursor.fromdate;
  while (budget > 0) {
    context.signal.throwIfAborted();
    const query = new URLSearchParams({
      site: settings.site,
      sort: "creation",
      order: "asc",
      fromdate: String(cursor.fromdate),
      page: String(cursor.page),
      pagesize: String(SE_PAGE_SIZE),
      filter: settings.filter,
    });
    if (settings.key !== undefined) query.set("key", settings.key);
    const body =
      (await context.http.getJson<SeWrapper>(`${settings.apiUrl}/2.3/questions?${query}`, { key: "questions" })).body ??
      {};
    // The API's own throttle: no call to this method before `backoff` seconds have passed.
    if (typeof body.backoff === "number" && body.backoff > 0) context.http.pause("questions", body.backoff * 1000);
    const items = Array.isArray(body.items) ? body.items : [];
    const posts = items.map((q) => questionPost(q, settings)).filter((p): p is Post => p !== undefined);
    for (const q of items) if (typeof q["creation_date"] === "number") newest = Math.max(newest, q["creation_date"]);
    budget -= items.length;
    const more = body.has_more === true;
    // Caught up: the next poll starts from the newest creation second seen (inclusive, so a
    // question created in that same second later is not missed; re-reading one is an update).
    const next: SeCursor = more ? { fromdate: cursor.fromdate, page: cursor.page + 1 } : { fromdate: newest, page: 1 };
    yield { posts, cursor: JSON.stringify(next), seen: items.length };
    cursor.fromdate = next.fromdate;
    cursor.page = next.page;
    if (body.quota_remaining === 0) {
      throw new SourceRequestError(
        "quota_exhausted",
        `daily quota of ${body.quota_max ?? "?"} requests used up`,
        nextUtcMidnight(context.now()),
      );
    }
    if (!more) return;
  }
}

/** The connector registered for kind "stackexchange". */
export const stackExchangeConnector: Connector = {
  kind: "stackexchange",
  validate: seSettings,
  describe(settings) {
    const s = seSettings(settings);
    return `${s.apiUrl}/2.3 site=${s.site} (ids stackexchange:${s.community}:<id>)`;
  },
  poll: pollQuestions,
};
