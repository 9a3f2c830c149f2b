/**
 * The post-reading part of the SearchIndex contract: `get` by ids and `scan`, the keyset pass
 * behind ExportPosts. Over 10,000 posts with many equal `created` times (so the id tie-break
 * is exercised across page edges), a whole scan must equal a brute-force sort of the matching
 * posts by (created, id), page size aside, and the set a filtered vector search returns.
 * lancedb-posts.test.ts and weaviate-posts.test.ts register it on fresh storage.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { QueryFilter, ScanCursor, SearchIndex } from "../../src/index/search-index.js";
import type { EnrichedPost, IndexedPost } from "../../src/model/post.js";
import { SENTIMENT_LABELS } from "../../src/model/post.js";
import type { IndexFixture } from "./contract.js";
import { matchesFilter } from "./filter-reference.js";
import { DIMS, embed, MODEL, makePost } from "./synthetic.js";

/** Posts in the suite: past 10,000, so an export spans many pages of the largest size. */
export const SCAN_POSTS = 10_240;
const HOUR = 3_600_000;
const START = Date.UTC(2024, 0, 1);
const SUBFORUMS = ["startups", "saas", "devops", "it's", "x' OR '1'='1"];

/** Posts whose `created` takes only 400 values (about 25 posts share each), ids in shuffled order. */
export function scanPosts(n = SCAN_POSTS): IndexedPost[] {
  return Array.from({ length: n }, (_, i) => {
    // A multiplicative shuffle, so id order and created order disagree.
    const k = (i * 7919) % n;
    return makePost({
      nativeId: `sc${String(k).padStart(5, "0")}`,
      source: i % 3 === 0 ? "hackernews" : "reddit",
      title: `post ${k} about ${["pricing", "hiring", "deploys", "churn"][k % 4]}`,
      content: `body ${k}`,
      subforum: SUBFORUMS[k % SUBFORUMS.length]!,
      author: `user${k % 37}`,
      upvotes: (k * 31) % 500,
      comments: (k * 17) % 90,
      created: START + (k % 400) * HOUR,
      sentiment: SENTIMENT_LABELS[k % 3]!,
      vector: embed(`post ${k % 50} words ${k % 7}`),
    });
  });
}

/** The reference export order: created ascending, then id ascending. */
export function exportOrder(a: EnrichedPost, b: EnrichedPost): number {
  return a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Every post of a scan, page by page; at most `maxPages` pages. */
export async function scanAll(
  index: SearchIndex,
  filter: QueryFilter | undefined,
  limit: number,
  maxPages = 10_000,
): Promise<EnrichedPost[]> {
  const out: EnrichedPost[] = [];
  let cursor: ScanCursor | undefined;
  for (let page = 0; page < maxPages; page++) {
    const got = await index.scan({ ...(filter ? { filter } : {}), ...(cursor ? { after: cursor } : {}), limit });
    out.push(...got);
    if (got.length < limit) return out;
    const last = got[got.length - 1]!;
    cursor = { created: last.created, id: last.id };
  }
  throw new Error(`scan did not end within ${maxPages} pages`);
}

/** Registers the posts contract for one backend. */
export function registerPostsContract(
  name: string,
  factory: () => Promise<IndexFixture>,
  opts: { skip?: string } = {},
): void {
  describe(`SearchIndex posts contract: ${name}`, { skip: opts.skip ?? false }, () => {
    let fixture: IndexFixture;
    let index: SearchIndex;
    const posts = scanPosts();
    const { vector: _v, ...firstStored } = posts[0]!;
    const expected = (filter: QueryFilter): string[] =>
      posts
        .filter((p) => matchesFilter(p, filter))
        .sort(exportOrder)
        .map((p) => p.id);

    before(async () => {
      fixture = await factory();
      index = fixture.create();
      await index.open(MODEL, DIMS);
      for (let i = 0; i < posts.length; i += 1024) {
        const res = await index.upsert(posts.slice(i, i + 1024));
        assert.deepEqual(res.failed, []);
      }
    });
    after(async () => {
      await index?.close().catch(() => {});
      await fixture?.dispose();
    });

    it("get returns the stored posts in the order asked and leaves missing ids out", async () => {
      const ids = [posts[5]!.id, "test:missing", posts[0]!.id, "x' OR '1'='1", posts[9000]!.id];
      const got = await index.get(ids);
      assert.deepEqual(
        got.map((p) => p.id),
        [posts[5]!.id, posts[0]!.id, posts[9000]!.id],
      );
      assert.deepEqual(
        got.find((p) => p.id === firstStored.id),
        firstStored,
      );
    });

    it("a whole scan of more than 10,000 posts equals the brute-force order, at every page size", async () => {
      const want = expected({});
      assert.ok(want.length > 10_000);
      for (const limit of [1000, 333]) {
        const got = await scanAll(index, undefined, limit);
        assert.equal(got.length, want.length, `page size ${limit}`);
        assert.deepEqual(
          got.map((p) => p.id),
          want,
          `page size ${limit}`,
        );
      }
    });

    it("a filtered scan equals the brute-force order and the filtered vector search's set", async () => {
      const filters: QueryFilter[] = [
        { subforums: ["saas", "x' OR '1'='1"], minUpvotes: 100 },
        { sources: ["hackernews"], createdFrom: START + 100 * HOUR, createdTo: START + 300 * HOUR - 1 },
        { authors: ["user3"], sentiments: ["negative", "positive"] },
        { excludeSubforums: ["it's"], minComments: 45 },
      ];
      for (const filter of filters) {
        const want = expected(filter);
        assert.ok(want.length > 10 && want.length < 10_000, `filter ${JSON.stringify(filter)} selects ${want.length}`);
        const got = await scanAll(index, filter, 250);
        assert.deepEqual(
          got.map((p) => p.id),
          want,
          JSON.stringify(filter),
        );
        const searched = await index.nearVector({ vector: embed("post words"), filter, limit: 10_000, offset: 0 });
        assert.deepEqual(searched.map((h) => h.post.id).sort(), [...want].sort(), JSON.stringify(filter));
      }
    });

    it("a scan resumes exactly after its cursor, even inside a run of equal created times", async () => {
      const all = expected({});
      const at = 4321;
      const cursorPost = posts.find((p) => p.id === all[at])!;
      const got = await index.scan({ after: { created: cursorPost.created, id: cursorPost.id }, limit: 50 });
      assert.deepEqual(
        got.map((p) => p.id),
        all.slice(at + 1, at + 51),
      );
      const end = posts.find((p) => p.id === all[all.length - 1])!;
      assert.deepEqual(await index.scan({ after: { created: end.created, id: end.id }, limit: 10 }), []);
    });

    it("an injection string in a filter matches only itself", async () => {
      const filter: QueryFilter = { subforums: ["x' OR '1'='1"], authors: ["user1' OR '1'='1"] };
      assert.deepEqual(await scanAll(index, filter, 100), []);
      const only = await scanAll(index, { subforums: ["x' OR '1'='1"] }, 1000);
      assert.equal(only.length, expected({ subforums: ["x' OR '1'='1"] }).length);
      assert.ok(only.every((p) => p.subforum === "x' OR '1'='1"));
    });

    it("refuses a page size outside 1..1000", async () => {
      await assert.rejects(index.scan({ limit: 0 }), RangeError);
      await assert.rejects(index.scan({ limit: 1001 }), RangeError);
    });
  });
}
