/**
 * Backfill of a date range through the Algolia HN Search API
 * (`/api/v1/search_by_date?tags=story&numericFilters=created_at_i>X,created_at_i<Y`), page by
 * page via `page`/`nbPages`. Each hit is mapped as the Firebase item it stands for, through the
 * dump reader's own item mapping, so a backfilled story and a walked one are the same post.
 */

import { hnItem } from "../../ingest/readers/hn-json.js";
import type { Post } from "../../model/post.js";
import type { PollContext, SourceBatch } from "../source.js";
import type { HnCursor } from "./hn-cursor.js";
import { formatHnCursor } from "./hn-cursor.js";
import type { HnSettings } from "./hn-settings.js";

/** Hits per page asked of Algolia (its maximum per page is 1000; 100 keeps batches small). */
export const ALGOLIA_HITS_PER_PAGE = 100;

interface AlgoliaPage {
  hits?: Record<string, unknown>[];
  nbPages?: number;
  page?: number;
}

/** A search hit as the Firebase item it describes. */
function asItem(hit: Record<string, unknown>): Record<string, unknown> {
  return {
    id: hit["objectID"],
    type: "story",
    by: hit["author"],
    time: hit["created_at_i"],
    title: hit["title"],
    text: hit["story_text"] ?? undefined,
    url: hit["url"],
    score: hit["points"],
    descendants: hit["num_comments"],
  };
}

/** Pages through the backfill range from the cursor's page; marks it done after the last. */
export async function* backfill(
  context: PollContext,
  settings: HnSettings,
  cursor: HnCursor,
  budget: { items: number },
): AsyncGenerator<SourceBatch> {
  if (settings.backfillFrom === undefined || settings.backfillTo === undefined || cursor.backfillPage === "done")
    return;
  let page = cursor.backfillPage;
  while (budget.items > 0) {
    context.signal.throwIfAborted();
    const query = new URLSearchParams({
      tags: "story",
      numericFilters: `created_at_i>${settings.backfillFrom},created_at_i<${settings.backfillTo}`,
      page: String(page),
      hitsPerPage: String(ALGOLIA_HITS_PER_PAGE),
    });
    const body = (
      await context.http.getJson<AlgoliaPage>(`${settings.algoliaUrl}/api/v1/search_by_date?${query}`, {
        key: "algolia",
      })
    ).body;
    const hits = Array.isArray(body?.hits) ? body.hits : [];
    const posts: Post[] = [];
    for (const hit of hits) {
      const read = hnItem(asItem(hit), 0);
      if ("post" in read) posts.push(read.post);
    }
    budget.items -= hits.length;
    page += 1;
    const last = hits.length === 0 || page >= (body?.nbPages ?? 0);
    cursor.backfillPage = last ? "done" : page;
    yield { posts, cursor: formatHnCursor(cursor), seen: hits.length };
    if (last) return;
  }
}
