/**
 * Search as the service runs it (SearchCore: request rules, filters, sort orders, page tokens)
 * over a real backend; lancedb.test.ts and weaviate.test.ts register it. Vectors are synthetic
 * (synthetic.ts) so the expected order of every sort is known from a brute-force pass: the
 * posts are fewer than the sort window, so an order other than relevance sorts every match.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { cosineOfUnit, judgeLead, leadFloorFor, postWords, relevanceQuery } from "../../src/core/absolute-relevance.js";
import { LeadsCore, leadRank } from "../../src/core/leads.js";
import { PageTokens } from "../../src/core/page-token.js";
import type { FilterParams } from "../../src/core/request-rules.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import type { EnrichedPost } from "../../src/model/post.js";
import type { IndexFixture } from "./contract.js";
import { filterPosts } from "./filter-contract.js";
import { matchesFilter } from "./filter-reference.js";
import { DIMS, embed, MODEL } from "./synthetic.js";

/** The synthetic bag-of-words embedder, so queries land near posts sharing their words. */
const embedder: Embedder = {
  model: MODEL,
  dimensions: DIMS,
  embed: async (texts) => texts.map((t) => embed(t)),
  close: async () => {},
};

const NO_FILTER: FilterParams = {
  startDate: "",
  endDate: "",
  sources: [],
  subforums: [],
  excludeSubforums: [],
  authors: [],
  sentiments: [],
  leadTypes: [],
};
const KEYS: Record<string, (p: EnrichedPost) => number> = {
  newest: (p) => p.created,
  oldest: (p) => -p.created,
  top: (p) => p.upvotes,
  most_commented: (p) => p.comments,
};

/** Registers the search contract for one backend. */
export function registerSearchContract(
  name: string,
  factory: () => Promise<IndexFixture>,
  opts: { skip?: string } = {},
): void {
  describe(`search through SearchCore: ${name}`, { skip: opts.skip ?? false }, () => {
    let fixture: IndexFixture;
    let index: SearchIndex;
    let core: SearchCore;
    const posts = filterPosts();
    const signal = new AbortController().signal;

    before(async () => {
      fixture = await factory();
      index = fixture.create();
      await index.open(MODEL, DIMS);
      assert.deepEqual((await index.upsert(posts)).failed, []);
      core = new SearchCore({
        index,
        embedder,
        summarizer: createExtractiveSummarizer(),
        hybridAlpha: 0.5,
        shortQueryAlpha: 0.5,
        pageTokens: new PageTokens(randomBytes(32)),
      });
    });
    after(async () => {
      await index?.close().catch(() => {});
      await fixture?.dispose();
    });

    /** Every page of a request, following next_page_token until it is empty. */
    async function allPages(
      run: (pageToken: string) => Promise<{ hits: { post: EnrichedPost }[]; nextPageToken: string }>,
    ): Promise<string[][]> {
      const pages: string[][] = [];
      let token = "";
      do {
        const page = await run(token);
        pages.push(page.hits.map((h) => h.post.id));
        token = page.nextPageToken;
      } while (token !== "" && pages.length < 50);
      return pages;
    }

    it("every sort order pages through all matches in key order, ties by id: no overlap, no gap", async () => {
      const filter: FilterParams = { ...NO_FILTER, sources: ["reddit", "hackernews"], minComments: 5 };
      const matching = posts.filter((p) => matchesFilter(p, { sources: ["reddit", "hackernews"], minComments: 5 }));
      for (const [sort, key] of Object.entries(KEYS)) {
        const want = [...matching].sort((a, b) => key(b) - key(a) || (a.id < b.id ? -1 : 1)).map((p) => p.id);
        for (const method of ["vector", "semantic"] as const) {
          const pages = await allPages((pageToken) =>
            method === "vector"
              ? core.vector(
                  {
                    query: "pricing churn deploy",
                    limit: 7,
                    subforums: [],
                    startDate: "",
                    endDate: "",
                    pageToken,
                    filter,
                    sort,
                  },
                  signal,
                )
              : core.semantic(
                  {
                    query: "pricing churn deploy invoice hiring database crm launch refund onboarding",
                    limit: 7,
                    subforums: [],
                    pageToken,
                    filter,
                    sort,
                  },
                  signal,
                ),
          );
          const flat = pages.flat();
          assert.ok(
            pages.slice(0, -1).every((p) => p.length === 7),
            `${method} ${sort}: full pages`,
          );
          if (method === "vector") assert.deepEqual(flat, want, `${method} ${sort}`);
          else {
            // Hybrid matches are the posts sharing a word with the query (all of them here) or near it.
            assert.equal(new Set(flat).size, flat.length, `${method} ${sort}: overlap`);
            assert.deepEqual(
              flat,
              want.filter((id) => flat.includes(id)),
              `${method} ${sort}: order`,
            );
            assert.ok(flat.length >= want.length * 0.9, `${method} ${sort}: ${flat.length} of ${want.length}`);
          }
        }
      }
    });

    it("relevance pages of a filtered query hold only matching posts, without overlap", async () => {
      const filter: FilterParams = {
        ...NO_FILTER,
        excludeSubforums: ["devops"],
        sentiments: ["positive", "negative"],
        minUpvotes: 10,
      };
      const allowed = new Set(
        posts
          .filter((p) =>
            matchesFilter(p, { excludeSubforums: ["devops"], sentiments: ["positive", "negative"], minUpvotes: 10 }),
          )
          .map((p) => p.id),
      );
      const pages = await allPages((pageToken) =>
        core.vector(
          { query: "refund onboarding", limit: 10, subforums: [], startDate: "", endDate: "", pageToken, filter },
          signal,
        ),
      );
      const flat = pages.flat();
      assert.equal(flat.length, allowed.size);
      assert.deepEqual(new Set(flat), allowed);
    });

    it("FindLeads considers only leads passing the filter, above min_score", async () => {
      const leads = new LeadsCore({ index, embedder, hybridAlpha: 0.5, shortQueryAlpha: 0.5 });
      const filter: FilterParams = {
        ...NO_FILTER,
        leadTypes: ["comparison", "pain_point"],
        sources: ["stackexchange", "reddit"],
      };
      const allowed = new Set(
        posts
          .filter((p) =>
            matchesFilter(p, {
              leadTypes: ["comparison", "pain_point"],
              sources: ["stackexchange", "reddit"],
              minLeadScore: 30,
            }),
          )
          .map((p) => p.id),
      );
      assert.ok(allowed.size >= 10 && allowed.size <= 30, `${allowed.size} posts pass the filter`);
      // Every post passing the filter is a candidate (three per requested lead), so the page is
      // the best-ranked of those judged about the query, computed here by brute force.
      const query = "pricing";
      const judged = relevanceQuery(query, { hybridAlpha: 0.5, shortQueryAlpha: 0.5 });
      const q = embed(query);
      const expected = posts
        .filter((p) => allowed.has(p.id))
        .map((p) => ({ p, j: judgeLead(judged, cosineOfUnit(q, p.vector), postWords(p), leadFloorFor(MODEL)) }))
        .filter((x) => x.j.about)
        .map((x) => ({ id: x.p.id, rank: leadRank(x.j.relevance, x.p.leadScore) }))
        .sort((a, b) => b.rank - a.rank || a.id.localeCompare(b.id))
        .slice(0, 10);
      assert.ok(expected.length >= 3, `only ${expected.length} filtered posts are about "${query}"`);
      const got = await leads.find({ query, limit: 10, minScore: 30, filter }, signal);
      assert.deepEqual(
        got.map((h) => h.post.id),
        expected.map((e) => e.id),
      );
      for (const h of got) assert.ok(allowed.has(h.post.id), `${h.post.id} passes the filter`);
    });

    it("a page token is refused with another filter or sort", async () => {
      const first = await core.vector(
        { query: "pricing", limit: 5, subforums: [], startDate: "", endDate: "", pageToken: "", sort: "newest" },
        signal,
      );
      assert.notEqual(first.nextPageToken, "");
      await assert.rejects(
        core.vector(
          {
            query: "pricing",
            limit: 5,
            subforums: [],
            startDate: "",
            endDate: "",
            pageToken: first.nextPageToken,
            sort: "oldest",
          },
          signal,
        ),
        /page_token belongs to a different query or filter/,
      );
      await assert.rejects(
        core.vector(
          {
            query: "pricing",
            limit: 5,
            subforums: [],
            startDate: "",
            endDate: "",
            pageToken: first.nextPageToken,
            sort: "newest",
            filter: { ...NO_FILTER, minUpvotes: 1 },
          },
          signal,
        ),
        /page_token belongs to a different query or filter/,
      );
    });
  });
}
