/**
 * Every REST endpoint with real data: samples of the real corpora ingested by the real CLI, a
 * real service on a loopback port, every body checked against the spec's contract schema, and
 * the documented semantics (ranges, ordering, filters, paging, summaries) asserted.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { SNIPPET_MAX_CHARS } from "../../src/core/snippet.js";
import { COMPRESS_MIN_BYTES } from "../../src/gateway/response-encoding.js";
import { assertRestContract } from "../contract/rest-schema.js";
import type { FakeChatServer } from "../fakes/openai-server.js";
import { startFakeChatServer } from "../fakes/openai-server.js";
import { CORPORA, corporaSkip, rebuildTopics, runIngest, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { rest } from "./rest-client.js";

const skip = corporaSkip();

describe("REST endpoints over real posts", { skip }, () => {
  let svc: RunningService;
  let key: string;
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-rest-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir });
    await rebuildTopics({ THREADSIGHT_DATA_DIR: dataDir });
    svc = await startService({ dataDir });
    key = await svc.createKey("enterprise");
  });
  after(async () => svc?.stop());

  test("semantic search: relevant posts, relevance in 0..1 descending, a grounded summary", async () => {
    const res = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "how do I find my first customers", limit: 8 },
    });
    assert.equal(res.status, 200);
    const { data } = res.body;
    assert.equal(data.query, "how do I find my first customers");
    assert.equal(data.total, data.results.length);
    assert.ok(data.results.length > 0 && data.results.length <= 8);
    for (const r of data.results) {
      assert.ok(r.relevance >= 0 && r.relevance <= 1, String(r.relevance));
      assert.ok(["positive", "neutral", "negative"].includes(r.sentiment));
      assert.ok([...r.content].length <= SNIPPET_MAX_CHARS);
      assert.match(r.url, /^https:\/\//);
    }
    const rel = data.results.map((r: { relevance: number }) => r.relevance);
    assert.deepEqual(
      rel,
      [...rel].sort((a, b) => b - a),
    );
    const cited = [...data.ai_summary.matchAll(/\[(\d+)\]/g)].map((m: RegExpMatchArray) => Number(m[1]));
    assert.ok(cited.length > 0, data.ai_summary);
    assert.ok(cited.every((n: number) => n >= 1 && n <= data.results.length));
    assert.ok(data.processing_time_ms >= 0);
  });

  test("semantic search reads an opinion question's subject: the same posts as the subject alone, the query echoed as sent", async () => {
    const framed = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "What are people saying about marketing a small business?", limit: 8 },
    });
    const bare = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "marketing a small business", limit: 8 },
    });
    assert.equal(framed.status, 200);
    assert.equal(framed.body.data.query, "What are people saying about marketing a small business?");
    const ids = (r: typeof framed) => r.body.data.results.map((x: { id: string }) => x.id);
    assert.ok(ids(framed).length > 0);
    assert.deepEqual(ids(framed), ids(bare));
  });

  test("semantic search pages without overlap and filters by subforum", async () => {
    const first = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "marketing a small business", limit: 5 },
    });
    assert.notEqual(first.body.data.next_page_token, "");
    const second = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "marketing a small business", limit: 5, page_token: first.body.data.next_page_token },
    });
    const ids1 = new Set(first.body.data.results.map((r: { id: string }) => r.id));
    assert.ok(second.body.data.results.length > 0);
    for (const r of second.body.data.results) assert.ok(!ids1.has(r.id), `duplicate ${r.id} across pages`);
    const foreign = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "something else", page_token: first.body.data.next_page_token },
    });
    assert.equal(foreign.status, 400);
    const only = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "marketing", limit: 10, subforums: ["SEO"] },
    });
    assert.ok(only.body.data.results.length > 0);
    for (const r of only.body.data.results) assert.equal(r.subforum, "SEO");
  });

  test("semantic search over min_relevance: every result reaches the bar, best first, and a higher bar keeps fewer", async () => {
    const at = async (min_relevance: number) => {
      const res = await rest(svc.url, "/api/v1/search/semantic", {
        key,
        body: { query: "marketing a small business", limit: 100, min_relevance },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const scores: number[] = res.body.data.results.map((r: { relevance: number }) => r.relevance);
      for (const [i, s] of scores.entries()) {
        assert.ok(s >= min_relevance, `relevance ${s} under ${min_relevance}`);
        if (i > 0) assert.ok(scores[i - 1]! >= s, "results out of order");
      }
      return scores.length;
    };
    const low = await at(0.3);
    const high = await at(0.6);
    assert.ok(low > 0, "the sample holds posts about marketing");
    assert.ok(high < low, `a bar of 0.6 kept ${high}, 0.3 kept ${low}`);
  });

  test("vector search: cosine similarity descending, inclusive UTC date range", async () => {
    const all = await rest(svc.url, "/api/v1/search/vector", {
      key,
      body: { query: "launching a startup", limit: 10 },
    });
    assert.equal(all.status, 200);
    const sims = all.body.data.results.map((r: { similarity_score: number }) => r.similarity_score);
    assert.ok(sims.length > 0);
    assert.ok(sims.every((s: number) => s >= -1 && s <= 1));
    assert.deepEqual(
      sims,
      [...sims].sort((a: number, b: number) => b - a),
    );
    const ranged = await rest(svc.url, "/api/v1/search/vector", {
      key,
      body: { query: "launching a startup", limit: 20, start_date: "2015-09-01", end_date: "2016-09-30" },
    });
    assert.ok(ranged.body.data.results.length > 0, "HN posts of 2015-2016 are in the sample");
    for (const r of ranged.body.data.results) {
      assert.ok(r.created >= "2015-09-01T00:00:00Z" && r.created <= "2016-09-30T23:59:59Z", r.created);
    }
    const empty = await rest(svc.url, "/api/v1/search/vector", {
      key,
      body: { query: "launching a startup", start_date: "1999-01-01", end_date: "1999-12-31" },
    });
    assert.deepEqual(empty.body.data.results, []);
    assert.equal(empty.body.data.total, 0);
  });

  test("leads: only posts at or above min_score, with documented types", async () => {
    const res = await rest(svc.url, "/api/v1/leads", {
      key,
      // An ask the sample holds leads for (r/smallbusiness asks for accounting software); FindLeads
      // returns only leads about the query, so a vague ask may rightly get none.
      body: { query: "recommend accounting or invoicing software", limit: 10, min_score: 30 },
    });
    assert.equal(res.status, 200);
    assert.ok(res.body.data.results.length > 0, "the real sample holds leads about accounting software");
    for (const lead of res.body.data.results) {
      assert.ok(lead.lead_score >= 30 && lead.lead_score <= 100);
      assert.notEqual(lead.lead_type, "");
    }
    const strict = await rest(svc.url, "/api/v1/leads", { key, body: { query: "looking for a tool", min_score: 100 } });
    for (const lead of strict.body.data.results) assert.equal(lead.lead_score, 100);
  });

  test("trends: topics active in the window, sorted by trend_score, with the window echoed", async () => {
    const res = await rest(svc.url, "/api/v1/trends", {
      key,
      body: { start_date: "2015-09-01", end_date: "2016-09-30", limit: 5 },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { data } = res.body;
    assert.deepEqual(data.date_range, { start: "2015-09-01", end: "2016-09-30" });
    assert.ok(data.trends.length > 0 && data.trends.length <= 5);
    assert.equal(data.total, data.trends.length);
    const scores = data.trends.map((t: { trend_score: number }) => t.trend_score);
    assert.deepEqual(
      scores,
      [...scores].sort((a: number, b: number) => b - a),
    );
    for (const t of data.trends) {
      assert.ok(t.trend_score >= 0 && t.trend_score <= 100);
      assert.ok(t.avg_sentiment >= -1 && t.avg_sentiment <= 1);
      assert.ok(t.post_count > 0 && t.sample_posts.length > 0 && t.sample_posts.length <= 5);
      assert.notEqual(t.topic, "");
      for (const p of t.sample_posts) assert.ok(p.created >= "2015-09-01" && p.created < "2016-10-01", p.created);
    }
    const before = await rest(svc.url, "/api/v1/trends", {
      key,
      body: { start_date: "1990-01-01", end_date: "1990-12-31" },
    });
    assert.deepEqual(before.body.data.trends, []);
    assert.equal(before.body.data.total, 0);
    const defaults = await rest(svc.url, "/api/v1/trends", { key, body: {} });
    assert.equal(defaults.status, 200);
    assert.ok(defaults.body.data.date_range.end >= "2016-09-01", "the default window ends at the newest data day");
  });

  test("a large answer is gzipped for a client that accepts gzip; a small one, or one nobody asked to compress, is not", async () => {
    const raw = (body: object, acceptEncoding: string | undefined) =>
      new Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
        const req = http.request(`${svc.url}/api/v1/search/semantic`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            ...(acceptEncoding ? { "accept-encoding": acceptEncoding } : {}),
          },
        });
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
        });
        req.on("error", reject);
        req.end(JSON.stringify(body));
      });
    const page = { query: "how do I find my first customers", limit: 100 };
    const gz = await raw(page, "gzip, deflate, br");
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.match(String(gz.headers.vary), /accept-encoding/i);
    const inflated = gunzipSync(gz.bytes);
    assert.ok(
      inflated.length >= COMPRESS_MIN_BYTES && gz.bytes.length < inflated.length / 2,
      `${gz.bytes.length} of ${inflated.length}`,
    );
    const fromGzip = JSON.parse(inflated.toString("utf8"));
    assertRestContract("/api/v1/search/semantic", 200, fromGzip);
    const plain = await raw(page, undefined);
    assert.equal(plain.headers["content-encoding"], undefined);
    const ids = (b: { data: { results: { id: string }[] } }) => b.data.results.map((r) => r.id);
    assert.deepEqual(ids(fromGzip), ids(JSON.parse(plain.bytes.toString("utf8"))));
    const refused = await raw(page, "gzip;q=0, identity");
    assert.equal(refused.headers["content-encoding"], undefined);
    const small = await raw({ ...page, limit: 3 }, "gzip");
    assert.equal(small.headers["content-encoding"], undefined, "a small page goes uncompressed");
  });

  test("usage counts each metered call once and is itself free", async () => {
    const before = await rest(svc.url, "/api/v1/usage", { key });
    await rest(svc.url, "/api/v1/search/vector", { key, body: { query: "pricing" } });
    await rest(svc.url, "/api/v1/search/vector", { key, body: { query: "pricing", limit: 0 } }); // invalid, still counted
    const after = await rest(svc.url, "/api/v1/usage", { key });
    const count = (body: any, op: string) =>
      body.data.operations.find((o: { operation: string }) => o.operation === op).count;
    assert.equal(count(after.body, "vector_search") - count(before.body, "vector_search"), 2);
    assert.equal(after.body.data.used - before.body.data.used, 2);
    assert.equal(after.body.data.unlimited, true);
  });

  test("posts ingested while the server runs become searchable without a restart", async () => {
    const res = await runIngest([path.join(CORPORA, "reddit_top2013/raw_csv/Etsy.csv"), "--limit", "40"], {
      THREADSIGHT_DATA_DIR: dataDir,
    });
    assert.ok(res.code === 0 || res.code === 3, res.stderr);
    // The running server is seen, so the ingest keeps the indexes current for its searches.
    assert.match(res.stderr, /a server reads this data directory: indexes kept up to date while writing/);
    const deadline = Date.now() + 15_000;
    let found = 0;
    while (Date.now() < deadline && found === 0) {
      const r = await rest(svc.url, "/api/v1/search/semantic", {
        key,
        body: { query: "etsy shop", limit: 10, subforums: ["Etsy"] },
      });
      found = r.body.data.results.length;
      if (found === 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(found > 0, "new Etsy posts were not visible within 15 s");
  });

  describe("with an LLM summary server", () => {
    let fake: FakeChatServer;
    let llm: RunningService;
    let llmKey: string;
    before(async () => {
      fake = await startFakeChatServer();
      llm = await startService({
        dataDir,
        env: { SUMMARY_LLM_URL: fake.url, SUMMARY_LLM_TIMEOUT_MS: "5000", REQUEST_TIMEOUT_MS: "400" },
      });
      llmKey = await llm.createKey("enterprise");
    });
    after(async () => {
      await llm?.stop({ keepData: true });
      await fake?.close();
    });

    test("the model's summary is used when it cites real results", async () => {
      fake.behave({ kind: "complete", content: "Founders recommend talking to customers early [1]." });
      const res = await rest(llm.url, "/api/v1/search/semantic", {
        key: llmKey,
        body: { query: "finding customers", limit: 3 },
      });
      assert.equal(res.body.data.ai_summary, "Founders recommend talking to customers early [1].");
    });

    test("a call past its deadline is 504 DEADLINE_EXCEEDED", async () => {
      fake.behave({ kind: "complete", content: "late [1].", delayMs: 3000 });
      const res = await rest(llm.url, "/api/v1/search/semantic", {
        key: llmKey,
        body: { query: "finding customers again", limit: 3 },
      });
      assert.equal(res.status, 504, JSON.stringify(res.body));
      assert.equal(res.body.error.reason, "DEADLINE_EXCEEDED");
    });
  });
});
