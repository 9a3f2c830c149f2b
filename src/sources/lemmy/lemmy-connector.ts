/**
 * The Lemmy source, for any instance: `/api/v3/post/list?sort=New&community_name=...&limit=50`,
 * newest first, page by page (`page=N`, or the `next_page` cursor Lemmy 0.19 and later return as
 * `page_cursor`), down to the posts already written. A post is new when its id is above the
 * highest written (ids are the instance's own serial numbers, so they only grow); a post edited
 * since the last walk (`updated`) is written again. Federated posts can arrive late with an older
 * `published`, so the walk goes a grace period past the newest time written before it stops.
 * Each page's batch carries the page to continue from, so a walk cut off by the item cap or
 * killed midway is continued, never skipped.
 */
import type { Post } from "../../model/post.js";
import type { HttpAnswer } from "../http/polite-client.js";
import type { Connector, PollContext, SourceBatch } from "../source.js";
import type { LemmyCursor, LemmyResume } from "./lemmy-cursor.js";
import { formatLemmyCursor, parseLemmyCursor } from "./lemmy-cursor.js";
import { lemmyPost, lemmyTime } from "./lemmy-post.js";
import { lemmySettings } from "./lemmy-settings.js";

/** Posts per page (the API's maximum). */
export const LEMMY_PAGE_SIZE = 50;
/** How far before the newest written time the walk keeps looking for late federated posts. */
export const FEDERATION_GRACE_MS = 10 * 60_000;

/** The GetPostsResponse envelope. */
interface GetPostsResponse {
  posts?: Record<string, unknown>[];
  next_page?: string;
}

const localId = (view: Record<string, unknown>): number | undefined => {
  const id = (view["post"] as Record<string, unknown> | undefined)?.["id"];
  return typeof id === "number" ? id : undefined;
};

async function* pollCommunity(context: PollContext): AsyncGenerator<SourceBatch> {
  const settings = lemmySettings(context.settings);
  const saved = parseLemmyCursor(context.cursor);
  const startedAt = context.now();
  let budget = context.maxItems;
  const resume: LemmyResume = saved?.resume ?? {
    page: 1,
    top: saved?.maxPostId ?? 0,
    newest: saved?.newest ?? 0,
    startedAt,
  };
  const floor = saved?.maxPostId ?? 0;
  const checkedAt = saved?.checkedAt ?? startedAt;
  let page: number | string = resume.page;
  let first = saved === undefined;
  while (budget > 0) {
    context.signal.throwIfAborted();
    const query = new URLSearchParams({
      sort: "New",
      community_name: settings.community,
      limit: String(LEMMY_PAGE_SIZE),
    });
    if (typeof page === "number") query.set("page", String(page));
    else query.set("page_cursor", page);
    const answer: HttpAnswer<GetPostsResponse> = await context.http.getJson(
      `${settings.instanceUrl}/api/v3/post/list?${query}`,
    );
    const views = answer.body?.posts ?? [];
    budget -= views.length;
    const posts: Post[] = [];
    let older = views.length > 0;
    for (const [i, view] of views.entries()) {
      const id = localId(view);
      if (id === undefined) continue;
      const post = (view["post"] ?? {}) as Record<string, unknown>;
      const published = lemmyTime(post["published"]);
      const edited =
        post["updated"] !== undefined && post["updated"] !== null && lemmyTime(post["updated"]) > checkedAt;
      resume.top = Math.max(resume.top, id);
      if (!Number.isNaN(published)) resume.newest = Math.max(resume.newest, published);
      if (id > floor || published >= (saved?.newest ?? 0) - FEDERATION_GRACE_MS) older = false;
      const wanted = first ? i < settings.backlog : id > floor || edited;
      if (!wanted) continue;
      const made = lemmyPost(view, settings);
      if (made !== undefined) posts.push(made);
    }
    const nextPage = answer.body?.next_page ?? (typeof page === "number" ? page + 1 : undefined);
    // Done: a fresh source reads one page; later walks stop at a page wholly older than the
    // written posts (and the grace), an empty page, or the end of the list.
    const done = first || older || views.length < LEMMY_PAGE_SIZE || nextPage === undefined;
    const cursor: LemmyCursor = done
      ? { maxPostId: resume.top, newest: resume.newest, checkedAt: resume.startedAt, resume: undefined }
      : { maxPostId: floor, newest: saved?.newest ?? 0, checkedAt, resume: { ...resume, page: nextPage! } };
    yield { posts, cursor: formatLemmyCursor(cursor), seen: views.length };
    if (done) return;
    page = nextPage!;
    first = false;
  }
  context.log(`the walk stopped at the item cap; it continues from page ${String(page)} next poll`);
}

/** The connector registered for kind "lemmy". */
export const lemmyConnector: Connector = {
  kind: "lemmy",
  validate: lemmySettings,
  describe(settings) {
    const s = lemmySettings(settings);
    return `${s.instanceUrl} community ${s.community}`;
  },
  poll: pollCommunity,
};
