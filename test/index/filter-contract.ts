/**
 * The filter part of the SearchIndex contract: every QueryFilter key alone and combined, on
 * every query method, compared with a brute-force pass over the same posts
 * (filter-reference.ts). lancedb.test.ts and weaviate.test.ts register it on fresh storage.
 * Filters are pushed into the engine, so a page is full whenever enough posts match.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Hit, QueryFilter, SearchIndex } from "../../src/index/search-index.js";
import type { IndexedPost } from "../../src/model/post.js";
import { LEAD_TYPES, SENTIMENT_LABELS } from "../../src/model/post.js";
import type { IndexFixture } from "./contract.js";
import { matchesFilter } from "./filter-reference.js";
import { DIMS, embed, MODEL, makePost } from "./synthetic.js";

const DAY = 86_400_000;
const JAN1 = Date.UTC(2024, 0, 1);
const SOURCES = ["reddit", "hackernews", "stackexchange"];
const SUBFORUMS = ["startups", "devops", "saas", "it's", "x' OR '1'='1"];
const AUTHORS = ["alice", "bob", "carol", "", "o'brien"];
const INJECTIONS = ["x' OR '1'='1", "startups' OR subforum <> '", 'startups") OR (1=1', "\\' OR 1=1 --", "a%", "*"];
const WORDS = "pricing churn deploy invoice hiring database crm launch refund onboarding".split(" ");

/** 120 posts with every filtered attribute spread so that each filter value selects a different subset. */
export function filterPosts(): IndexedPost[] {
  return Array.from({ length: 120 }, (_, i) => {
    const words = [WORDS[i % WORDS.length]!, WORDS[(i * 7) % WORDS.length]!, WORDS[(i * 3 + 1) % WORDS.length]!];
    const leadType = i % 4 === 0 ? "" : LEAD_TYPES[i % LEAD_TYPES.length]!;
    return makePost({
      nativeId: `flt${String(i).padStart(3, "0")}`,
      source: SOURCES[i % SOURCES.length]!,
      title: `${words.join(" ")} question ${i}`,
      content: `${words.join(" ")} details about ${words[0]} and more`,
      subforum: SUBFORUMS[i % SUBFORUMS.length]!,
      author: AUTHORS[(i * 3) % AUTHORS.length]!,
      upvotes: (i * 37) % 200,
      comments: (i * 11) % 50,
      created: JAN1 + (i % 60) * DAY + (i % 7) * 3_600_000,
      sentiment: SENTIMENT_LABELS[(i * 5) % 3]!,
      sentimentScore: ((i % 21) - 10) / 10,
      leadType,
      leadScore: leadType === "" ? 0 : (i * 13) % 100,
    });
  });
}

/** Filters each exercising one key, then combinations. */
export function filterCases(): [string, QueryFilter][] {
  return [
    ["sources", { sources: ["hackernews"] }],
    ["sources (two)", { sources: ["reddit", "stackexchange"] }],
    ["subforums", { subforums: ["saas", "it's"] }],
    ["excludeSubforums", { excludeSubforums: ["startups", "x' OR '1'='1"] }],
    ["authors", { authors: ["o'brien", "bob"] }],
    ["authors (empty name)", { authors: [""] }],
    ["minUpvotes", { minUpvotes: 150 }],
    ["minComments", { minComments: 40 }],
    ["sentiments", { sentiments: ["negative"] }],
    ["leadTypes", { leadTypes: ["comparison", "pain_point"] }],
    ["created range", { createdFrom: JAN1 + 10 * DAY, createdTo: JAN1 + 20 * DAY - 1 }],
    ["minLeadScore", { minLeadScore: 60 }],
    [
      "combined",
      {
        sources: ["reddit", "hackernews"],
        excludeSubforums: ["devops"],
        minUpvotes: 50,
        sentiments: ["positive", "neutral"],
        createdFrom: JAN1 + 5 * DAY,
      },
    ],
    [
      "combined with leads",
      {
        subforums: ["startups", "saas", "devops"],
        leadTypes: ["solution_request", "buying_intent", "comparison"],
        minComments: 10,
        minLeadScore: 20,
      },
    ],
    ["include and exclude the same", { subforums: ["saas"], excludeSubforums: ["saas"] }],
  ];
}

const ids = (hits: readonly Hit[]): string[] => hits.map((h) => h.post.id).sort();

/** Registers the filter contract for one backend. */
export function registerFilterContract(
  name: string,
  factory: () => Promise<IndexFixture>,
  opts: { skip?: string } = {},
): void {
  describe(`SearchIndex filter contract: ${name}`, { skip: opts.skip ?? false }, () => {
    let fixture: IndexFixture;
    let index: SearchIndex;
    const posts = filterPosts();
    const expected = (filter: QueryFilter): string[] =>
      posts
        .filter((p) => matchesFilter(p, filter))
        .map((p) => p.id)
        .sort();

    before(async () => {
      fixture = await factory();
      index = fixture.create();
      await index.open(MODEL, DIMS);
      const res = await index.upsert(posts);
      assert.deepEqual(res.failed, []);
    });
    after(async () => {
      await index?.close().catch(() => {});
      await fixture?.dispose();
    });

    it("every filter alone and combined selects exactly the matching posts, on every query method", async () => {
      const text = WORDS.join(" ");
      const vector = embed(text);
      for (const [label, filter] of filterCases()) {
        const want = expected(filter);
        assert.ok(
          label.startsWith("include and exclude") ? want.length === 0 : want.length > 0 && want.length < posts.length,
          `${label}: a selective case`,
        );
        assert.deepEqual(
          ids(await index.nearVector({ vector, filter, limit: 200, offset: 0 })),
          want,
          `nearVector ${label}`,
        );
        assert.deepEqual(ids(await index.keyword({ text, filter, limit: 200, offset: 0 })), want, `keyword ${label}`);
        assert.deepEqual(
          ids(await index.hybrid({ text, vector, alpha: 0.5, filter, limit: 200, offset: 0 })),
          want,
          `hybrid ${label}`,
        );
      }
    });

    it("a filtered page is full whenever enough posts match (filters run in the engine, not after it)", async () => {
      const filter: QueryFilter = { sources: ["stackexchange"], minUpvotes: 20 };
      const want = expected(filter);
      assert.ok(want.length > 15);
      const vector = embed("pricing churn");
      const pages = [
        await index.nearVector({ vector, filter, limit: 5, offset: 0 }),
        await index.nearVector({ vector, filter, limit: 5, offset: 5 }),
      ];
      for (const page of pages) assert.equal(page.length, 5);
      const hy = await index.hybrid({ text: "pricing churn", vector, alpha: 0.5, filter, limit: 5, offset: 10 });
      assert.equal(hy.length, 5);
      for (const h of [...pages.flat(), ...hy]) assert.ok(want.includes(h.post.id));
    });

    it("injection strings in every string filter match only a post holding that exact value", async () => {
      const vector = embed("anything at all");
      for (const s of INJECTIONS) {
        for (const key of ["subforums", "sources", "authors", "sentiments", "leadTypes"] as const) {
          const filter: QueryFilter = { [key]: [s] };
          assert.deepEqual(
            ids(await index.nearVector({ vector, filter, limit: 200, offset: 0 })),
            expected(filter),
            `${key} ${JSON.stringify(s)}`,
          );
        }
        const ex: QueryFilter = { excludeSubforums: [s] };
        assert.deepEqual(
          ids(await index.nearVector({ vector, filter: ex, limit: 200, offset: 0 })),
          expected(ex),
          `excludeSubforums ${JSON.stringify(s)}`,
        );
      }
    });
  });
}
