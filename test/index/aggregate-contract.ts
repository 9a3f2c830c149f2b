/**
 * The aggregate part of the SearchIndex contract: counts by every group field and date
 * histograms by every interval, alone, with filters and with a similarity threshold, each equal
 * to a brute-force count over the same posts (aggregate-reference.ts). lancedb.test.ts and
 * weaviate.test.ts register it on fresh storage.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AggregateQuery, AggregateResult } from "../../src/index/aggregate-query.js";
import { GROUP_FIELDS, TooManyBucketsError } from "../../src/index/aggregate-query.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { referenceAggregate } from "./aggregate-reference.js";
import type { IndexFixture } from "./contract.js";
import { filterPosts } from "./filter-contract.js";
import { cosine, DIMS, embed, MODEL } from "./synthetic.js";

const DAY = 86_400_000;
const JAN1 = Date.UTC(2024, 0, 1);

/** Sentiment sums are float sums in another order: equal to a few ulps, everything else exactly. */
function assertSameAggregate(got: AggregateResult, want: AggregateResult, label: string): void {
  const round = (r: AggregateResult) => ({
    ...r,
    buckets: r.buckets.map((b) => ({ ...b, sentimentSum: Math.round(b.sentimentSum * 1e6) / 1e6 })),
  });
  assert.deepEqual(round(got), round(want), label);
}

/** A similarity threshold halfway inside the widest gap near the middle of the posts' similarities. */
function thresholdFor(vector: Float32Array, sims: number[]): number {
  const sorted = [...new Set(sims.map((s) => Math.round(s * 1e6) / 1e6))].sort((a, b) => a - b);
  let best = 0;
  let at = 0.5;
  for (let i = Math.floor(sorted.length / 4); i < (3 * sorted.length) / 4 - 1; i++) {
    const gap = sorted[i + 1]! - sorted[i]!;
    if (gap > best) [best, at] = [gap, (sorted[i]! + sorted[i + 1]!) / 2];
  }
  assert.ok(vector.length === DIMS && best > 1e-3, "a clear gap to put the threshold in");
  return at;
}

/** Registers the aggregate contract for one backend. */
export function registerAggregateContract(
  name: string,
  factory: () => Promise<IndexFixture>,
  opts: { skip?: string } = {},
): void {
  describe(`SearchIndex aggregate contract: ${name}`, { skip: opts.skip ?? false }, () => {
    let fixture: IndexFixture;
    let index: SearchIndex;
    const posts = filterPosts();
    const vector = embed("pricing churn invoice");
    const minSimilarity = thresholdFor(
      vector,
      posts.map((p) => cosine(p.vector, vector)),
    );
    const near = { vector, minSimilarity };
    const check = async (label: string, query: AggregateQuery): Promise<AggregateResult> => {
      const want = referenceAggregate(posts, query);
      const got = await index.aggregate!(query);
      assertSameAggregate(got, want, label);
      return got;
    };

    before(async () => {
      fixture = await factory();
      index = fixture.create();
      await index.open(MODEL, DIMS);
      assert.deepEqual((await index.upsert(posts)).failed, []);
    });
    after(async () => {
      await index?.close().catch(() => {});
      await fixture?.dispose();
    });

    it("counts every group field (top N with the remainder) and every interval over all posts", async () => {
      for (const interval of ["day", "week", "month"] as const) {
        const got = await check(`all posts by ${interval}`, {
          groupBy: GROUP_FIELDS,
          topN: 3,
          histogram: { interval, maxBuckets: 1000 },
        });
        assert.equal(got.total, posts.length);
        for (const g of got.groups) assert.equal(g.values.reduce((s, v) => s + v.count, 0) + g.other, posts.length);
      }
      // Authors tie (24 posts each): the top 2 are the first two names, "" is never a value.
      const byAuthor = await check("authors, tied", { groupBy: ["author"], topN: 2 });
      assert.deepEqual(
        byAuthor.groups[0]!.values.map((v) => v.value),
        ["alice", "bob"],
      );
    });

    it("equals the brute-force count with filters, with a threshold, and with both", async () => {
      const cases: [string, AggregateQuery][] = [
        [
          "filter: hackernews (day buckets with gaps)",
          {
            filter: { sources: ["hackernews"] },
            groupBy: ["subforum", "sentiment"],
            topN: 10,
            histogram: { interval: "day", maxBuckets: 1000 },
          },
        ],
        [
          "filter: combined",
          {
            filter: { excludeSubforums: ["devops"], minUpvotes: 50, sentiments: ["positive", "neutral"] },
            groupBy: GROUP_FIELDS,
            topN: 2,
            histogram: { interval: "week", maxBuckets: 1000 },
          },
        ],
        ["threshold", { near, groupBy: GROUP_FIELDS, topN: 5, histogram: { interval: "week", maxBuckets: 1000 } }],
        // One value per field: every flat-search range's answer may be full and leave values out.
        ["threshold, top value", { near, groupBy: ["author", "subforum", "leadType"], topN: 1 }],
        [
          "threshold and filter",
          {
            near,
            filter: { leadTypes: ["comparison", "pain_point", "advice_request"], minComments: 5 },
            groupBy: ["leadType", "source"],
            topN: 10,
            histogram: { interval: "month", maxBuckets: 1000 },
          },
        ],
        [
          "a date range wider than the posts: empty buckets at both ends",
          {
            filter: { createdFrom: Date.UTC(2023, 11, 1), createdTo: Date.UTC(2024, 3, 30) },
            groupBy: [],
            topN: 10,
            histogram: {
              interval: "week",
              from: Date.UTC(2023, 11, 1),
              to: Date.UTC(2024, 3, 30),
              maxBuckets: 1000,
            },
          },
        ],
        [
          "nothing matches",
          {
            filter: { authors: ["nobody"] },
            groupBy: ["subforum"],
            topN: 3,
            histogram: { interval: "day", maxBuckets: 9 },
          },
        ],
      ];
      for (const [label, query] of cases) {
        const got = await check(label, query);
        if (label.startsWith("threshold")) assert.ok(got.total > 0 && got.total < posts.length, `${label}: selective`);
      }
    });

    it("refuses a histogram with more buckets than its cap", async () => {
      await assert.rejects(
        index.aggregate!({ groupBy: [], topN: 1, histogram: { interval: "day", maxBuckets: 30 } }),
        TooManyBucketsError,
      );
      await assert.rejects(
        index.aggregate!({
          groupBy: [],
          topN: 1,
          histogram: { interval: "day", from: JAN1, to: JAN1 + 40 * DAY, maxBuckets: 30 },
        }),
        TooManyBucketsError,
      );
    });
  });
}
