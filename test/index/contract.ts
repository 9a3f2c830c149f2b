/**
 * The SearchIndex contract: one suite every backend must pass (lancedb.test.ts and
 * weaviate.test.ts register it). Vectors are synthetic (synthetic.ts), so the suite checks the
 * adapters, not the embedding model. The tests run in order on one storage and build on each
 * other (open, then upsert, then queries), so run the suite whole, not filtered by name.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { samePost } from "../../src/index/same-post.js";
import type { Hit, Page, QueryFilter, SearchIndex } from "../../src/index/search-index.js";
import { EmbeddingModelMismatchError, LEAD_FIELDS, RESULT_FIELDS } from "../../src/index/search-index.js";
import type { IndexedPost } from "../../src/model/post.js";
import { cosine, DIMS, embed, MODEL, makePost, randomPosts } from "./synthetic.js";

/** Storage for one suite run, as the backend's test file provides it. */
export interface IndexFixture {
  /** A new, unopened adapter over this fixture's storage; every call is a separate client. */
  create(): SearchIndex;
  /** Removes the storage (directory or collection). */
  dispose(): Promise<void>;
}

const MAR1 = Date.UTC(2024, 2, 1);
const DAY = 86_400_000;
const INJECTION = "x' OR '1'='1";

/** The hand-made posts the assertions are about; `filler` adds volume for paging. */
const POSTS: IndexedPost[] = [
  makePost({
    nativeId: "k-title",
    title: "Kubernetes autoscaling question",
    content: "How do I scale pods when traffic grows during the day",
    subforum: "devops",
    created: MAR1,
  }),
  makePost({
    nativeId: "k-content",
    title: "Weekend hobby projects",
    content: "I run a small kubernetes cluster at home for fun and learning",
    subforum: "homelab",
    created: MAR1 + DAY - 1,
  }),
  makePost({
    nativeId: "pricing",
    title: "Pricing page feedback",
    content: "Our pricing page converts poorly, looking for feedback on tiers",
    subforum: "startups",
    created: MAR1 + DAY,
    leadType: "advice_request",
    leadScore: 70,
  }),
  makePost({
    nativeId: "crm",
    title: "Best CRM for a small sales team",
    content: "We need a CRM that integrates with email and tracks leads",
    subforum: "startups",
    created: MAR1 - 1,
    leadType: "buying_intent",
    leadScore: 90,
  }),
  makePost({
    nativeId: "invoice",
    title: "Invoice software recommendations",
    content: "Looking for invoicing software that handles VAT",
    subforum: "smallbusiness",
    created: MAR1 - 14 * DAY,
    leadType: "solution_request",
    leadScore: 40,
  }),
  makePost({
    nativeId: "quote",
    title: "Apostrophe subforum post",
    content: "apostrophes in subforum names",
    subforum: "it's",
    created: MAR1 - 20 * DAY,
  }),
  makePost({
    nativeId: "inject",
    title: "Injection named subforum",
    content: "nothing special here",
    subforum: INJECTION,
    created: MAR1 - 21 * DAY,
  }),
  makePost({
    nativeId: "garden",
    title: "Gardening tips",
    content: "tomatoes need plenty of sun",
    subforum: "garden",
    created: MAR1 - 30 * DAY,
    leadType: "",
    leadScore: 95,
  }),
];
const FILLER = randomPosts(40, 7, "f");
const ALL = [...POSTS, ...FILLER];
const byNative = (n: string): IndexedPost => POSTS.find((p) => p.nativeId === n)!;
const ids = (hits: readonly Hit[]): string[] => hits.map((h) => h.post.id);

function assertSortedDesc(hits: readonly Hit[]): void {
  for (let i = 1; i < hits.length; i++) {
    assert.ok(
      hits[i - 1]!.score >= hits[i]!.score - 1e-9,
      `scores not descending at ${i}: ${hits.map((h) => h.score).join(", ")}`,
    );
  }
}

/**
 * Asserts `hits` ranks like `reference`: every id the reference scores above its last place is
 * present, and ids both lists hold come in the reference's score order. Ties may swap, and ids
 * tied with the reference's last place may differ (either list may cut a tie anywhere).
 */
function assertSameRanking(hits: readonly Hit[], reference: readonly Hit[]): void {
  assert.equal(hits.length, reference.length);
  const last = reference[reference.length - 1]!.score;
  const refScore = new Map(reference.map((h) => [h.post.id, h.score]));
  for (const h of reference) {
    if (h.score > last + 1e-6) assert.ok(ids(hits).includes(h.post.id), `${h.post.id} missing`);
  }
  const shared = hits.filter((h) => refScore.has(h.post.id));
  assert.ok(shared.length >= reference.filter((h) => h.score > last + 1e-6).length);
  for (let i = 1; i < shared.length; i++) {
    const prev = refScore.get(shared[i - 1]!.post.id)!;
    const cur = refScore.get(shared[i]!.post.id)!;
    assert.ok(prev >= cur - 1e-6, `order differs from the reference at ${i}`);
  }
}

/** Registers the contract suite for one backend. `skip` (a reason) skips it on this machine. */
export function registerIndexContract(
  name: string,
  factory: () => Promise<IndexFixture>,
  opts: { skip?: string } = {},
): void {
  describe(`SearchIndex contract: ${name}`, { skip: opts.skip ?? false }, () => {
    let fixture: IndexFixture;
    let index: SearchIndex;
    const others: SearchIndex[] = [];
    const another = (): SearchIndex => {
      const i = fixture.create();
      others.push(i);
      return i;
    };

    before(async () => {
      fixture = await factory();
      index = fixture.create();
    });
    after(async () => {
      for (const o of others) await o.close().catch(() => {});
      await index?.close().catch(() => {});
      await fixture?.dispose();
    });

    it("open() creates empty storage and reports the model", async () => {
      const info = await index.open(MODEL, DIMS);
      assert.deepEqual(info, { embeddingModel: MODEL, dimensions: DIMS, count: 0 });
      assert.equal(await index.ping(), true);
    });

    it("upsert inserts, then updates by id without duplicates", async () => {
      const first = await index.upsert(ALL);
      assert.deepEqual(first, { inserted: ALL.length, updated: 0, failed: [] });
      assert.equal(await index.count(), ALL.length);
      const changed = [{ ...byNative("garden"), title: "Gardening tips (edited)" }, byNative("crm")];
      const second = await index.upsert(changed);
      assert.deepEqual(second, { inserted: 0, updated: 2, failed: [] });
      assert.equal(await index.count(), ALL.length);
      const [garden] = await index.get([byNative("garden").id]);
      assert.equal(garden?.title, "Gardening tips (edited)");
      await index.upsert([{ ...byNative("garden") }]);
    });

    it("upsert counts an id repeated within one batch once, a stored one as updated, and reports bad posts", async () => {
      const dup = makePost({ nativeId: "dup", title: "Duplicate within batch", content: "first copy" });
      const dup2 = { ...dup, content: "second copy" };
      const bad = makePost({
        nativeId: "bad",
        title: "Wrong dimensions",
        vector: new Float32Array(DIMS + 1).fill(0.1),
      });
      const res = await index.upsert([byNative("crm"), dup, dup2, bad]);
      assert.equal(res.inserted, 1);
      assert.equal(res.updated, 1);
      assert.equal(res.failed.length, 1);
      assert.equal(res.failed[0]!.id, bad.id);
      assert.match(res.failed[0]!.reason, /dimension/);
      const [got] = await index.get([dup.id]);
      assert.equal(got?.content, "second copy");
      assert.equal(await index.count(), ALL.length + 1);
    });

    it("get returns posts in the order asked, without vectors, skipping unknown ids", async () => {
      const want = [byNative("pricing").id, "test:missing", byNative("k-title").id, byNative("crm").id];
      const got = await index.get(want);
      assert.deepEqual(
        got.map((p) => p.id),
        [want[0], want[2], want[3]],
      );
      const { vector: _v, ...expected } = byNative("pricing");
      assert.deepEqual(got[0], expected);
      assert.deepEqual(await index.get([]), []);
    });

    it("getIndexed returns posts with their stored vectors, in the order asked; each equals what was written", async () => {
      const want = [byNative("crm").id, "test:missing", FILLER[0]!.id, byNative("crm").id];
      const got = await index.getIndexed(want);
      assert.deepEqual(
        got.map((p) => p.id),
        [want[0], want[2], want[3]],
      );
      // Ingest skips the write of a post equal to its stored version (same-post.ts): that needs
      // every field and the vector back as written, on every backend.
      for (const p of got) {
        const written = ALL.find((a) => a.id === p.id)!;
        assert.ok(samePost(p, written), `${p.id} reads back as written`);
        assert.deepEqual(p.vector, Float32Array.from(written.vector));
      }
      assert.ok(!samePost(got[0]!, { ...byNative("crm"), upvotes: byNative("crm").upvotes + 1 }));
      assert.deepEqual(await index.getIndexed([]), []);
    });

    it("open() of the same storage agrees; another model or dimension count is refused", async () => {
      const same = another();
      const info = await same.open(MODEL, DIMS);
      assert.equal(info.count, ALL.length + 1);
      await assert.rejects(another().open("another-model", DIMS), EmbeddingModelMismatchError);
      await assert.rejects(another().open(MODEL, DIMS * 2), EmbeddingModelMismatchError);
      // The message names the stored model, the configured one, the setting and the way out.
      await assert.rejects(another().open("another-model", DIMS), (err: Error) => {
        assert.match(err.message, new RegExp(`holds vectors of embedding model "${MODEL}" \\(${DIMS} dimensions\\)`));
        assert.match(
          err.message,
          /configured encoder is "another-model" \(\d+ dimensions, EMBEDDINGS_MODEL=another-model\)/,
        );
        assert.match(err.message, /`threadsight reembed`/);
        return true;
      });
    });

    it("keyword finds exact terms; a title match outranks a content match", async () => {
      const tomatoes = await index.keyword({ text: "tomatoes", limit: 10, offset: 0 });
      assert.deepEqual(ids(tomatoes), [byNative("garden").id]);
      assert.ok(tomatoes[0]!.score > 0);
      const k8s = await index.keyword({ text: "kubernetes", limit: 10, offset: 0 });
      assert.deepEqual(ids(k8s), [byNative("k-title").id, byNative("k-content").id]);
      assert.ok(k8s[0]!.score > k8s[1]!.score);
      assert.deepEqual(await index.keyword({ text: "zzzunknownword", limit: 10, offset: 0 }), []);
      assert.deepEqual(await index.keyword({ text: "   ", limit: 10, offset: 0 }), []);
    });

    it("nearVector ranks by cosine similarity and reports it as the score", async () => {
      const target = byNative("invoice");
      const hits = await index.nearVector({ vector: target.vector, limit: 10, offset: 0 });
      assert.equal(hits.length, 10);
      assert.equal(hits[0]!.post.id, target.id);
      assert.ok(Math.abs(hits[0]!.score - 1) < 1e-4, `self-similarity ${hits[0]!.score}`);
      assertSortedDesc(hits);
      const vectors = new Map([...ALL].map((p) => [p.id, p.vector]));
      for (const h of hits) {
        assert.ok(h.score >= -1 - 1e-6 && h.score <= 1 + 1e-6);
        assert.ok(Math.abs(h.score - cosine(target.vector, vectors.get(h.post.id)!)) < 1e-4, `score of ${h.post.id}`);
      }
    });

    it("hybrid scores lie in 0..1; alpha 0 ranks like keyword and alpha 1 like vector", async () => {
      const text = "pricing feedback for startup tiers";
      const vector = embed(text);
      const mid = await index.hybrid({ text, vector, alpha: 0.5, limit: 20, offset: 0 });
      assert.ok(mid.length > 0);
      assertSortedDesc(mid);
      for (const h of mid) assert.ok(h.score >= 0 && h.score <= 1, `score ${h.score}`);
      assert.equal(mid[0]!.post.id, byNative("pricing").id);

      const kw = await index.keyword({ text, limit: 10, offset: 0 });
      const h0 = await index.hybrid({ text, vector, alpha: 0, limit: 10, offset: 0 });
      assertSameRanking(h0, kw);
      assert.ok(Math.abs(h0[0]!.score - 1) < 1e-6);

      const vec = await index.nearVector({ vector, limit: 10, offset: 0 });
      const h1 = await index.hybrid({ text, vector, alpha: 1, limit: 10, offset: 0 });
      assertSameRanking(h1, vec);
      assert.ok(Math.abs(h1[0]!.score - 1) < 1e-6);

      const blank = await index.hybrid({ text: "   ", vector, alpha: 0.5, limit: 10, offset: 0 });
      assertSameRanking(blank, vec);
      for (const h of blank) assert.ok(h.score >= 0 && h.score <= 1, `score ${h.score}`);
    });

    it("filters on created include both day edges", async () => {
      const filter: QueryFilter = { createdFrom: MAR1, createdTo: MAR1 + DAY - 1 };
      const want = new Set([byNative("k-title").id, byNative("k-content").id]);
      const vec = await index.nearVector({ vector: embed("kubernetes pods cluster"), filter, limit: 50, offset: 0 });
      assert.deepEqual(new Set(ids(vec)), want);
      const kw = await index.keyword({ text: "kubernetes pricing crm", filter, limit: 50, offset: 0 });
      assert.deepEqual(new Set(ids(kw)), want);
      const hy = await index.hybrid({
        text: "kubernetes pricing crm",
        vector: embed("pricing crm"),
        alpha: 0.5,
        filter,
        limit: 50,
        offset: 0,
      });
      assert.deepEqual(new Set(ids(hy)), want);
      const from = await index.nearVector({
        vector: embed("pricing"),
        filter: { createdFrom: MAR1 + DAY },
        limit: 50,
        offset: 0,
      });
      assert.deepEqual(ids(from), [byNative("pricing").id]);
      const to = await index.nearVector({
        vector: embed("crm"),
        filter: { createdTo: MAR1 - 1, createdFrom: MAR1 - 1 },
        limit: 50,
        offset: 0,
      });
      assert.deepEqual(ids(to), [byNative("crm").id]);
    });

    it("filters on subforums and lead score", async () => {
      const subs = await index.nearVector({
        vector: embed("anything"),
        filter: { subforums: ["startups", "garden"] },
        limit: 50,
        offset: 0,
      });
      assert.deepEqual(new Set(ids(subs)), new Set(["pricing", "crm", "garden"].map((n) => byNative(n).id)));
      const leads = await index.keyword({
        text: "feedback integrates tomatoes",
        filter: { minLeadScore: 50 },
        limit: 50,
        offset: 0,
      });
      assert.deepEqual(new Set(ids(leads)), new Set([byNative("pricing").id, byNative("crm").id]));
      const combined = await index.hybrid({
        text: "crm pricing",
        vector: embed("crm pricing"),
        alpha: 0.5,
        filter: { subforums: ["startups"], minLeadScore: 80, createdTo: MAR1 },
        limit: 50,
        offset: 0,
      });
      assert.deepEqual(ids(combined), [byNative("crm").id]);
      const none = await index.nearVector({
        vector: embed("x"),
        filter: { subforums: ["no-such-subforum"] },
        limit: 5,
        offset: 0,
      });
      assert.deepEqual(none, []);
    });

    it('a page of "result" or "lead" fields holds those fields as stored and leaves the others empty', async () => {
      const target = byNative("crm");
      const read: [Page["fields"], readonly string[]][] = [
        ["result", RESULT_FIELDS],
        ["lead", LEAD_FIELDS],
      ];
      for (const [fields, wanted] of read) {
        const calls = [
          (f: Page["fields"]) =>
            index.hybrid({ text: target.title, vector: target.vector, alpha: 0.5, limit: 5, offset: 0, fields: f }),
          (f: Page["fields"]) => index.nearVector({ vector: target.vector, limit: 5, offset: 0, fields: f }),
          (f: Page["fields"]) => index.keyword({ text: target.title, limit: 5, offset: 0, fields: f }),
        ];
        for (const call of calls) {
          const full = await call("all");
          const partial = await call(fields);
          assert.deepEqual(
            partial.map((h) => [h.post.id, h.score]),
            full.map((h) => [h.post.id, h.score]),
          );
          assert.equal(partial[0]?.post.id, target.id);
          for (const [i, h] of partial.entries()) {
            const whole = full[i]!.post as unknown as Record<string, unknown>;
            for (const [k, v] of Object.entries(h.post)) {
              if (wanted.includes(k)) assert.deepEqual(v, whole[k], `${fields}: ${k}`);
              else assert.ok(v === "" || v === 0, `${fields}: unread ${k} = ${String(v)}`);
            }
          }
        }
        // The target's unread fields are not empty in the store, so "empty" above was a real read-less page.
        assert.ok(target.author !== "" && target.created !== 0 && target.leadScore > 0);
      }
    });

    it("injection attempts in filter values and query text are inert", async () => {
      const vector = embed("anything");
      for (const s of [INJECTION, "it's", "startups' OR subforum <> '", 'startups") OR (1=1', "\\' OR 1=1 --"]) {
        const hits = await index.nearVector({ vector, filter: { subforums: [s] }, limit: 50, offset: 0 });
        const expected = POSTS.filter((p) => p.subforum === s).map((p) => p.id);
        assert.deepEqual(ids(hits), expected, `subforum filter ${JSON.stringify(s)}`);
      }
      for (const text of ["tomatoes' OR '1'='1", "title:tomatoes OR *", '"tomatoes" AND -sun', "tomatoes)) OR ((1"]) {
        const hits = await index.keyword({ text, limit: 50, offset: 0 });
        assert.ok(hits.length < 10, `query ${JSON.stringify(text)} matched ${hits.length} posts`);
        assert.equal(hits[0]?.post.id, byNative("garden").id, `query ${JSON.stringify(text)}`);
      }
    });

    it("pages do not overlap and concatenate to the unpaged result", async () => {
      const text = "startup revenue customer pricing growth";
      const vector = embed(text);
      const queries: [string, (offset: number, limit: number) => Promise<Hit[]>][] = [
        ["keyword", (offset, limit) => index.keyword({ text, offset, limit })],
        ["nearVector", (offset, limit) => index.nearVector({ vector, offset, limit })],
        ["hybrid", (offset, limit) => index.hybrid({ text, vector, alpha: 0.5, offset, limit })],
      ];
      for (const [label, run] of queries) {
        const whole = ids(await run(0, 12));
        assert.equal(whole.length, 12, label);
        const pages = [...ids(await run(0, 4)), ...ids(await run(4, 4)), ...ids(await run(8, 4))];
        assert.equal(new Set(pages).size, 12, `${label}: overlap across pages`);
        assert.deepEqual(pages, whole, label);
      }
    });

    it("rejects bad arguments with RangeError", async () => {
      await assert.rejects(
        index.nearVector({ vector: new Float32Array(DIMS - 1).fill(1), limit: 1, offset: 0 }),
        RangeError,
      );
      await assert.rejects(index.nearVector({ vector: new Float32Array(DIMS), limit: 1, offset: 0 }), RangeError);
      await assert.rejects(index.keyword({ text: "x", limit: 0, offset: 0 }), RangeError);
      await assert.rejects(index.keyword({ text: "x", limit: 5, offset: -1 }), RangeError);
      await assert.rejects(
        index.hybrid({ text: "x", vector: embed("x"), alpha: 1.5, limit: 5, offset: 0 }),
        RangeError,
      );
      await assert.rejects(
        index.keyword({ text: "x", limit: 5, offset: 0, filter: { createdFrom: Number.NaN } }),
        RangeError,
      );
    });

    it("an aborted signal rejects every call with an AbortError", async () => {
      const pre = AbortSignal.abort();
      const vector = embed("crm");
      const calls: [string, (s: AbortSignal) => Promise<unknown>][] = [
        ["upsert", (s) => index.upsert([makePost({ nativeId: "aborted", title: "never" })], s)],
        ["hybrid", (s) => index.hybrid({ text: "crm", vector, alpha: 0.5, limit: 5, offset: 0 }, s)],
        ["nearVector", (s) => index.nearVector({ vector, limit: 5, offset: 0 }, s)],
        ["keyword", (s) => index.keyword({ text: "crm", limit: 5, offset: 0 }, s)],
        ["get", (s) => index.get([byNative("crm").id], s)],
        ["getIndexed", (s) => index.getIndexed([byNative("crm").id], s)],
        ["count", (s) => index.count(s)],
        ["ping", (s) => index.ping(s)],
      ];
      // A pre-aborted signal stops a write before it starts; one aborted in flight may still
      // land (documented), so the in-flight upsert below may write "aborted" harmlessly.
      await assert.rejects(calls[0]![1](pre), { name: "AbortError" });
      assert.deepEqual(await index.get(["test:aborted"]), []);
      for (const [label, call] of calls) {
        await assert.rejects(call(pre), { name: "AbortError" }, `${label} with a pre-aborted signal`);
        const ctl = new AbortController();
        const pending = call(ctl.signal);
        ctl.abort();
        await assert.rejects(pending, { name: "AbortError" }, `${label} aborted in flight`);
      }
    });

    it("another client of the same storage sees new posts within a few seconds", async () => {
      const reader = another();
      await reader.open(MODEL, DIMS);
      const fresh = makePost({ nativeId: "fresh", title: "Freshly ingested marmalade post", content: "marmalade" });
      await index.upsert([fresh]);
      const deadline = Date.now() + 5000;
      let seen: Hit[] = [];
      while (Date.now() < deadline) {
        seen = await reader.keyword({ text: "marmalade", limit: 5, offset: 0 });
        if (seen.length > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(ids(seen), [fresh.id]);
      assert.equal((await reader.get([fresh.id])).length, 1);
      assert.equal(await reader.count(), await index.count());
      assert.equal((await reader.nearVector({ vector: fresh.vector, limit: 1, offset: 0 }))[0]?.post.id, fresh.id);
    });

    it("ping reports liveness and close() ends it", async () => {
      const c = another();
      assert.equal(await c.ping(), false);
      await c.open(MODEL, DIMS);
      assert.equal(await c.ping(), true);
      await c.close();
      assert.equal(await c.ping(), false);
    });
  });
}
