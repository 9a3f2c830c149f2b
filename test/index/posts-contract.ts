/**
 * The post-reading part of the SearchIndex contract: `get` by ids, and `scan` and
 * `scanSimilar`, the keyset passes behind ExportPosts without and with a query. Over 10,000
 * posts with many equal `created` times (so the id tie-break is exercised across page edges), a
 * whole scan must equal a brute-force sort of the matching posts by (created, id), page size
 * aside, and the set a filtered vector search returns; a whole similar scan must equal the
 * brute-force set above the threshold in the same order, and the set the index's own aggregate
 * counts for the same filter and threshold. lancedb-posts.test.ts and weaviate-posts.test.ts
 * register it on fresh storage.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Hit, QueryFilter, ScanCursor, SearchIndex, SimilarityBound } from "../../src/index/search-index.js";
import type { EnrichedPost, IndexedPost } from "../../src/model/post.js";
import { SENTIMENT_LABELS } from "../../src/model/post.js";
import type { IndexFixture } from "./contract.js";
import { matchesFilter } from "./filter-reference.js";
import { cosine, DIMS, embed, MODEL, makePost } from "./synthetic.js";

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

/** Every hit of a similar scan, page by page, and how many pages came back empty before the end. */
export async function scanSimilarAll(
  index: SearchIndex,
  filter: QueryFilter | undefined,
  near: SimilarityBound,
  limit: number,
  maxPages = 10_000,
): Promise<{ hits: Hit[]; emptyPages: number }> {
  const hits: Hit[] = [];
  let emptyPages = 0;
  let cursor: ScanCursor | undefined;
  for (let page = 0; page < maxPages; page++) {
    const got = await index.scanSimilar!({
      ...(filter ? { filter } : {}),
      ...(cursor ? { after: cursor } : {}),
      near,
      limit,
    });
    assert.ok(got.hits.length <= limit);
    hits.push(...got.hits);
    if (got.next === undefined) return { hits, emptyPages };
    if (got.hits.length === 0) emptyPages++;
    cursor = got.next;
  }
  throw new Error(`similar scan did not end within ${maxPages} pages`);
}

/**
 * A threshold in the widest gap between the distinct similarities of `sims`, among those that
 * keep between `minShare` and `maxShare` of the posts, so float rounding cannot move a post
 * across it.
 */
export function gapThreshold(sims: readonly number[], minShare: number, maxShare: number): number {
  const sorted = [...sims].sort((a, b) => a - b);
  let best = 0;
  let at = Number.NaN;
  for (let i = 1; i < sorted.length; i++) {
    const kept = (sorted.length - i) / sorted.length;
    const gap = sorted[i]! - sorted[i - 1]!;
    if (kept >= minShare && kept <= maxShare && gap > best) [best, at] = [gap, (sorted[i]! + sorted[i - 1]!) / 2];
  }
  assert.ok(best > 1e-3, `a clear gap between ${minShare} and ${maxShare} of the posts`);
  return at;
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

    it("a similar scan is exactly the set the aggregate counts, in export order, with each similarity", async () => {
      const vector = embed("post 7 words 3");
      const sims = new Map(posts.map((p) => [p.id, cosine(p.vector, vector)]));
      const broad = gapThreshold([...sims.values()], 0.1, 0.4);
      const cases: { filter: QueryFilter; minSimilarity: number; limits: number[] }[] = [
        { filter: {}, minSimilarity: broad, limits: [1000, 97] },
        { filter: { sources: ["hackernews"], minUpvotes: 100 }, minSimilarity: broad, limits: [250] },
        {
          filter: { subforums: ["x' OR '1'='1"], sentiments: ["negative", "neutral"] },
          minSimilarity: broad,
          limits: [1000],
        },
        // Only the posts with the query's own vector: most pages hold none and the pass goes on.
        { filter: {}, minSimilarity: 0.999, limits: [200] },
      ];
      for (const { filter, minSimilarity, limits } of cases) {
        const label = `${JSON.stringify(filter)} >= ${minSimilarity}`;
        const near = { vector, minSimilarity };
        const want = posts
          .filter((p) => matchesFilter(p, filter) && sims.get(p.id)! >= minSimilarity)
          .sort(exportOrder)
          .map((p) => p.id);
        assert.ok(want.length > 10, `${label} selects ${want.length}`);
        for (const limit of limits) {
          const { hits, emptyPages } = await scanSimilarAll(index, filter, near, limit);
          assert.deepEqual(
            hits.map((h) => h.post.id),
            want,
            `${label}, page size ${limit}`,
          );
          for (const h of hits) assert.ok(Math.abs(h.score - sims.get(h.post.id)!) < 1e-5, `${h.post.id} similarity`);
          if (minSimilarity === 0.999) assert.ok(emptyPages > 0, "pages without a match do not end the pass");
        }
        const agg = await index.aggregate!({ filter, near, groupBy: [], topN: 10 });
        assert.equal(agg.total, want.length, label);
      }
      const first = posts.find((p) => p.id === expected({})[0])!;
      const whole = await index.scanSimilar!({ near: { vector: first.vector, minSimilarity: 0.999 }, limit: 1 });
      assert.deepEqual(
        whole.hits.map((h) => h.post),
        [posts.find((p) => p.id === first.id)].map((p) => {
          const { vector: _x, ...stored } = p!;
          return stored;
        }),
        "a hit carries the whole stored post",
      );
    });

    it("the aggregate's counts by field with a threshold equal the similar scan's posts", async () => {
      const vector = embed("post 7 words 3");
      const minSimilarity = gapThreshold(
        posts.map((p) => cosine(p.vector, vector)),
        0.1,
        0.4,
      );
      for (const filter of [{}, { sources: ["hackernews"], minUpvotes: 100 }] as QueryFilter[]) {
        const near = { vector, minSimilarity };
        const { hits } = await scanSimilarAll(index, filter, near, 1000);
        const agg = await index.aggregate!({ filter, near, groupBy: ["subforum", "source"], topN: 10 });
        for (const g of agg.groups) {
          const counts = new Map<string, number>();
          for (const h of hits) counts.set(h.post[g.field], (counts.get(h.post[g.field]) ?? 0) + 1);
          assert.deepEqual(
            Object.fromEntries(g.values.map((v) => [v.value, v.count])),
            Object.fromEntries(counts),
            `${JSON.stringify(filter)} ${g.field}`,
          );
        }
      }
    });

    it("refuses a page size outside 1..1000", async () => {
      await assert.rejects(index.scan({ limit: 0 }), RangeError);
      await assert.rejects(index.scan({ limit: 1001 }), RangeError);
      const near = { vector: embed("post"), minSimilarity: 0.5 };
      await assert.rejects(index.scanSimilar!({ near, limit: 1001 }), RangeError);
      await assert.rejects(index.scanSimilar!({ near: { ...near, minSimilarity: 2 }, limit: 10 }), RangeError);
      await assert.rejects(
        index.scanSimilar!({ near: { ...near, vector: new Float32Array(3) }, limit: 10 }),
        RangeError,
      );
    });
  });
}
