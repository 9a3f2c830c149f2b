/**
 * The themed ai_summary: clustering finds planted themes, labels come from each theme's own
 * words, and every figure and quote of a summary reads back from its results (summary-check.ts),
 * on hand-made pages and through SearchCore on a real LanceDB index.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { MATCH_FLOOR, MATCH_WINDOW } from "../../src/core/summary/match-floor.js";
import type { SummaryInput } from "../../src/core/summary/summarizer.js";
import { themeGroups, wardCuts } from "../../src/core/summary/theme-clusters.js";
import { createExtractiveSummarizer, themedSummary } from "../../src/core/summary/themed-summary.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { SentimentLabel } from "../../src/model/post.js";
import { DIMS, embed, MODEL, makePost } from "../index/synthetic.js";
import { checkThemedSummary } from "./summary-check.js";

/** A unit vector near axis `axis` of `dims`, nudged by `wobble` along another axis. */
function near(axis: number, wobble: number, dims = 8): Float32Array {
  const v = new Float32Array(dims);
  v[axis] = 1;
  v[(axis + 1 + Math.abs(Math.round(wobble * 10))) % dims]! += wobble;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const DAY = 86_400_000;
const T0 = Date.UTC(2015, 2, 10);

/** Three planted themes about payments: fees, frozen accounts, invoicing. */
const PAGE: SummaryInput[] = [
  [
    "Stripe fees for small shops",
    "Stripe charges a percentage fee on every card payment. The fees add up for small shops.",
    0,
    "negative",
  ],
  [
    "Frozen PayPal account",
    "PayPal froze my account after one large payment. Support said to wait for a review of the account.",
    1,
    "negative",
  ],
  [
    "Invoicing tools for freelancers",
    "Which invoicing tool sends invoice reminders for payment automatically?",
    2,
    "neutral",
  ],
  [
    "Are Stripe fees negotiable?",
    "At our volume the card payment fees matter; can the percentage fee be negotiated?",
    0,
    "neutral",
  ],
  [
    "PayPal held my payment for 21 days",
    "My account is frozen and the payment held with no reason given.",
    1,
    "negative",
  ],
  [
    "Invoice reminders that work",
    "Automatic invoice reminders got our clients paying on time, payment within a week.",
    2,
    "positive",
  ],
  ["Stripe fee on refunds", "Stripe keeps the fee when you refund a card payment, which surprised us.", 0, "negative"],
  ["Off topic: my garden", "Tomatoes grow well in June.", 3, "positive"],
].map(([title, content, axis, sentiment], i) => ({
  title: title as string,
  content: content as string,
  subforum: "smallbusiness",
  relevance: i === 7 ? 0.2 : 0.99 - i * 0.03,
  created: T0 + i * 40 * DAY,
  sentiment: sentiment as SentimentLabel,
  vector: near(axis as number, (i % 3) * 0.1),
}));

describe("theme clusters", () => {
  it("recovers planted groups and cuts at each size", () => {
    const vs = PAGE.slice(0, 7).map((r) => r.vector!);
    assert.deepEqual(
      themeGroups(vs).map((g) => g.join(",")),
      ["0,3,6", "1,4", "2,5"],
    );
    const cuts = wardCuts(vs, 3);
    assert.equal(cuts.get(3)!.length, 3);
    assert.equal(cuts.get(2)!.length, 2);
  });

  it("keeps a page of three or fewer results as one theme", () => {
    assert.deepEqual(themeGroups([near(0, 0), near(3, 0), near(5, 0)]), [[0, 1, 2]]);
  });
});

describe("themedSummary", () => {
  it("states only what the results hold", () => {
    const s = themedSummary("payment processor problems", PAGE, { matched: 12 });
    if (process.env.SHOW_SUMMARY) console.log(s);
    const themes = checkThemedSummary(s, PAGE, { matched: 12, floor: MATCH_FLOOR });
    assert.match(
      s,
      /^12 posts matched "payment processor problems" with relevance 0\.65 or more; the 7 on this page fall into three themes\./,
    );
    assert.deepEqual(
      themes.map((t) => t.members),
      [
        [1, 4, 7],
        [2, 5],
        [3, 6],
      ],
    );
    assert.match(themes[0]!.label, /stripe|fee/);
    assert.match(themes[1]!.label, /account|frozen|paypal/);
    assert.match(themes[2]!.label, /invoice|reminder/);
  });

  it("counts the page's matches when the caller counted none, and says when the count is a bound", () => {
    const s = themedSummary("payments", PAGE.slice(0, 3));
    checkThemedSummary(s, PAGE.slice(0, 3), { matched: 3, floor: MATCH_FLOOR });
    const bound = themedSummary("payments", PAGE, { matched: MATCH_WINDOW, matchedAtLeast: true });
    checkThemedSummary(bound, PAGE, { matched: MATCH_WINDOW, atLeast: true, floor: MATCH_FLOOR });
  });

  it("quotes a title only when the post has no body", () => {
    const links = PAGE.slice(0, 2).map((r) => ({ ...r, content: "" }));
    const s = themedSummary("stripe fees paypal", links);
    const [theme] = checkThemedSummary(s, links, { matched: 2, floor: MATCH_FLOOR });
    assert.match(s, /one is titled/);
    assert.ok(links.some((r) => r.title === theme!.quote));
  });

  it("states a theme without a quote when none of its posts names a query term", () => {
    const s = themedSummary("quantum computing", PAGE);
    checkThemedSummary(s, PAGE, { matched: 7, floor: MATCH_FLOOR });
    assert.doesNotMatch(s, /\[\d+\]/, "nothing is quoted, so nothing is cited");
  });

  it("without relevance or vectors every result matches and forms one theme", () => {
    const bare = PAGE.map(({ title, content, subforum }) => ({ title, content, subforum }));
    const s = themedSummary("payments", bare);
    checkThemedSummary(s, bare, { matched: 8, floor: undefined });
  });

  it("says so when nothing on the page reaches the floor", () => {
    const low = PAGE.map((r) => ({ ...r, relevance: 0.1 }));
    assert.match(
      themedSummary("payments", low),
      /^No post on this page matched "payments" with relevance 0\.65 or more; the nearest is "Stripe fees for small shops" \[1\]\.$/,
    );
  });
});

describe("SearchCore ai_summary on LanceDB", () => {
  let dir: string;
  let index: LanceDbIndex;
  const embedder: Embedder = {
    model: MODEL,
    dimensions: DIMS,
    embed: async (texts) => texts.map((t) => embed(t)),
    close: async () => {},
  };
  const posts = PAGE.map((r, i) =>
    makePost({
      nativeId: String(i + 1),
      title: r.title,
      content: r.content,
      created: r.created!,
      sentiment: r.sentiment!,
    }),
  );

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-themed-summary-"));
    index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir) });
    await index.open(MODEL, DIMS);
    await index.upsert(posts);
  });
  after(async () => {
    await index?.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const limit of [3, 10]) {
    it(`counts matches past the page and checks out against the hits (limit ${limit})`, async () => {
      const core = new SearchCore({
        index,
        embedder,
        summarizer: createExtractiveSummarizer(),
        hybridAlpha: 0.5,
        shortQueryAlpha: 0.5,
        pageTokens: new PageTokens(randomBytes(32)),
      });
      const query = "stripe fees payment account invoice";
      const out = await core.semantic({ query, limit, subforums: [], pageToken: "" }, new AbortController().signal);
      // The count the summary must state: fused candidates at or above the floor, read directly.
      const all = await index.hybrid({ text: query, vector: embed(query), alpha: 0.5, limit: 50, offset: 0 });
      const matched = all.filter((h) => h.score >= MATCH_FLOOR).length;
      assert.ok(matched > 0);
      const results = out.hits.map((h) => ({
        title: h.post.title,
        content: h.post.content,
        subforum: h.post.subforum,
        relevance: h.score,
        created: h.post.created,
        sentiment: h.post.sentiment,
      }));
      if (process.env.SHOW_SUMMARY) console.log(out.summary);
      checkThemedSummary(out.summary, results, { matched, floor: MATCH_FLOOR });
    });
  }
});
