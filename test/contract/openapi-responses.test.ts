/**
 * Real responses against the generated OpenAPI document: a real service over real sample posts,
 * every operation's 200 (with non-empty results, so every item field is checked) and a sample
 * of its errors (400, 401, 404, 405, 413, 415, 429 for the rate and the quota), bodies and
 * headers validated with Ajv against the response the document declares for that status.
 * The responses also pass the hand-written spec schema (rest-client.ts checks every one), so the
 * proto, the document and the spec are held to the same bodies. The last test breaks real
 * responses on purpose to show the validation can fail.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { RestResponse } from "../api/rest-client.js";
import { rest } from "../api/rest-client.js";
import { corporaSkip, rebuildTopics, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { loadOpenApiDocument, OpenApiResponses } from "./openapi-validator.js";

/** Two sources: Reddit (subforums, leads) and Hacker News (2015-2016 dates for ranges and trends). */
const SAMPLE = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 100 },
  { file: "hackernews_2015_2016/hacker_news.csv", limit: 150 },
];

const skip = corporaSkip();
const checker = new OpenApiResponses(loadOpenApiDocument());

/** The canonical path of a request path (the /v1 alias is served by the same operation). */
function canonical(p: string): string {
  return p.startsWith("/v1/") ? `/api${p}` : p;
}

/** Sends a request and asserts that its response conforms to the document. */
async function call(
  base: string,
  p: string,
  init: Parameters<typeof rest>[2] & { method?: string } = {},
): Promise<RestResponse> {
  const res = await rest(base, p, init);
  const method = init.method ?? (init.body === undefined && init.rawBody === undefined ? "GET" : "POST");
  const problems = checker.check(canonical(p), method, res);
  assert.deepEqual(
    problems,
    [],
    `${method} ${p} -> ${res.status} breaks the OpenAPI document\n${JSON.stringify(res.body).slice(0, 1500)}`,
  );
  return res;
}

describe("real REST responses conform to the OpenAPI document", { skip }, () => {
  let svc: RunningService;
  let key: string;
  const samples = new Map<string, RestResponse>();
  before(async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-openapi-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, SAMPLE);
    await rebuildTopics({ THREADSIGHT_DATA_DIR: dataDir });
    svc = await startService({ dataDir });
    key = await svc.createKey("enterprise");
  });
  after(async () => svc?.stop());

  test("every operation's success, with results, limit headers and the envelope", async () => {
    const semantic = await call(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "how do I find my first customers", limit: 5 },
    });
    assert.equal(semantic.status, 200);
    assert.ok(semantic.body.data.results.length > 0);
    samples.set("semantic", semantic);
    const vector = await call(svc.url, "/api/v1/search/vector", {
      key,
      body: { query: "launching a startup", limit: 5, start_date: "2015-01-01", end_date: "2016-12-31", subforums: [] },
    });
    assert.equal(vector.status, 200);
    assert.ok(vector.body.data.results.length > 0);
    const trends = await call(svc.url, "/api/v1/trends", {
      key,
      body: { start_date: "2015-01-01", end_date: "2016-12-31", limit: 3 },
    });
    assert.equal(trends.status, 200);
    assert.ok(trends.body.data.trends.length > 0 && trends.body.data.trends[0].sample_posts.length > 0);
    const leads = await call(svc.url, "/api/v1/leads", {
      key,
      // An ask the sample holds a lead for (Hacker News: "Ask HN: Which framework for a CRUD app
      // in 2016?"); FindLeads returns only leads about the query.
      body: { query: "which framework should I use for a CRUD app", limit: 10, min_score: 0 },
    });
    assert.equal(leads.status, 200);
    assert.ok(leads.body.data.results.length > 0);
    const usage = await call(svc.url, "/api/v1/usage", { key });
    assert.equal(usage.status, 200);
    assert.ok(usage.body.data.operations.length > 0);
    samples.set("usage", usage);
    const alias = await call(svc.url, "/v1/search/semantic", { key, body: { query: "pricing", limit: 2 } });
    assert.equal(alias.status, 200);
    // The spec's three headers on every paid call, as the document requires.
    for (const res of [semantic, vector, trends, leads])
      assert.match(res.headers.get("x-ratelimit-remaining") ?? "", /^\d+$/);
  });

  test("field errors (400), transport errors (413, 415), unknown paths (404) and methods (405)", async () => {
    const cases: { path: string; init: Parameters<typeof rest>[2]; status: number; reason: string }[] = [
      {
        path: "/api/v1/search/semantic",
        init: { key, body: { query: "x", limit: 500 } },
        status: 400,
        reason: "OUT_OF_RANGE",
      },
      { path: "/api/v1/search/semantic", init: { key, body: { quer: "x" } }, status: 400, reason: "UNKNOWN_FIELD" },
      { path: "/api/v1/leads", init: { key, body: {} }, status: 400, reason: "MISSING_FIELD" },
      {
        path: "/api/v1/leads",
        init: { key, body: { query: "crm", min_score: "50" } },
        status: 400,
        reason: "WRONG_TYPE",
      },
      {
        path: "/api/v1/search/vector",
        init: { key, body: { query: "x", start_date: "2024-02-30" } },
        status: 400,
        reason: "INVALID_DATE",
      },
      // Found by schemathesis: a NUL in a subforum name used to reach the index filter (500).
      {
        path: "/api/v1/search/semantic",
        init: { key, body: { query: "x", subforums: ["a\u0000b"] } },
        status: 400,
        reason: "INVALID_ARGUMENT",
      },
      {
        path: "/api/v1/trends",
        init: { key, rawBody: "{", headers: { "content-type": "application/json" } },
        status: 400,
        reason: "MALFORMED_JSON",
      },
      {
        path: "/api/v1/trends",
        init: { key, rawBody: "{}", headers: { "content-type": "text/plain" } },
        status: 415,
        reason: "UNSUPPORTED_MEDIA_TYPE",
      },
      {
        path: "/api/v1/search/semantic",
        init: { key, body: { query: "x".repeat(svc.config.maxBodyBytes) } },
        status: 413,
        reason: "PAYLOAD_TOO_LARGE",
      },
      { path: "/api/v1/no-such-thing", init: { key }, status: 404, reason: "NOT_FOUND" },
      { path: "/api/v1/leads", init: { key, method: "GET" }, status: 405, reason: "METHOD_NOT_ALLOWED" },
    ];
    for (const c of cases) {
      const res = await call(svc.url, c.path, c.init);
      assert.equal(res.status, c.status, `${c.path} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.reason, c.reason);
      if (c.status === 400 && c.reason !== "MALFORMED_JSON")
        assert.match(res.headers.get("x-ratelimit-limit") ?? "", /^\d+$/, "admitted calls carry limit headers");
    }
    samples.set("400", await call(svc.url, "/api/v1/search/semantic", { key, body: { query: "x", limit: 0 } }));
  });

  test("401 without a key or with a bad one, with WWW-Authenticate", async () => {
    for (const headers of [{}, { authorization: "Bearer ts_live_nope" }] as Record<string, string>[]) {
      const res = await call(svc.url, "/api/v1/search/semantic", { headers, body: { query: "x" } });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.reason, "INVALID_API_KEY");
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
    }
    const usage = await call(svc.url, "/api/v1/usage", {});
    assert.equal(usage.status, 401);
  });

  test("429 for the rate and for the quota, with Retry-After and the limit headers", async () => {
    const rateKey = (
      await svc.service.keys.createKey({
        accountName: "openapi-rate",
        plan: "starter",
        name: "rate",
        overrides: { ratePerMinute: 1 },
      })
    ).key;
    assert.equal((await call(svc.url, "/api/v1/leads", { key: rateKey, body: { query: "crm" } })).status, 200);
    const rated = await call(svc.url, "/api/v1/leads", { key: rateKey, body: { query: "crm" } });
    assert.equal(rated.status, 429);
    assert.equal(rated.body.error.reason, "RATE_LIMITED");
    assert.equal(rated.headers.get("x-ratelimit-remaining"), "0");
    const quotaKey = (
      await svc.service.keys.createKey({
        accountName: "openapi-quota",
        plan: "starter",
        name: "quota",
        overrides: { quota: 1 },
      })
    ).key;
    assert.equal((await call(svc.url, "/api/v1/trends", { key: quotaKey, body: {} })).status, 200);
    const over = await call(svc.url, "/api/v1/trends", { key: quotaKey, body: {} });
    assert.equal(over.status, 429);
    assert.equal(over.body.error.reason, "QUOTA_EXCEEDED");
    assert.equal(over.headers.get("x-quota-remaining"), "0");
    samples.set("429", over);
  });

  test("a response that breaks the document is caught (the validation can fail)", () => {
    const semantic = samples.get("semantic");
    const usage = samples.get("usage");
    const bad400 = samples.get("400");
    const tooMany = samples.get("429");
    assert.ok(semantic && usage && bad400 && tooMany, "earlier tests collected the samples");
    const path = "/api/v1/search/semantic";
    const broken = (mutate: (body: any) => void, from: RestResponse = semantic): RestResponse => {
      // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON body
      const body = structuredClone(from.body);
      mutate(body);
      return { ...from, body };
    };
    const expectCaught = (p: string, method: string, res: RestResponse, what: RegExp): void => {
      const problems = checker.check(p, method, res);
      assert.ok(
        problems.some((m) => what.test(m)),
        `expected ${what} among ${JSON.stringify(problems)}`,
      );
    };
    expectCaught(
      path,
      "POST",
      broken((b) => delete b.data.results[0].created),
      /created/,
    );
    expectCaught(
      path,
      "POST",
      broken((b) => (b.data.total = String(b.data.total))),
      /integer/,
    );
    expectCaught(
      path,
      "POST",
      broken((b) => (b.data.results[0].sentiment = "ecstatic")),
      /allowed values/,
    );
    expectCaught(
      path,
      "POST",
      broken((b) => (b.data.extra = 1)),
      /additional/,
    );
    expectCaught(
      path,
      "POST",
      broken((b) => (b.success = false)),
      /const/,
    );
    expectCaught(
      "/api/v1/usage",
      "GET",
      broken((b) => (b.data.period_end = "next month"), usage),
      /date-time/,
    );
    expectCaught(
      path,
      "POST",
      broken((b) => (b.error.reason = "QUOTA_EXCEEDED"), bad400),
      /allowed values/,
    );
    const noHeader = new Headers(semantic.headers);
    noHeader.delete("x-ratelimit-limit");
    expectCaught(path, "POST", { ...semantic, headers: noHeader }, /X-RateLimit-Limit is missing/);
    const noRetry = new Headers(tooMany.headers);
    noRetry.delete("retry-after");
    expectCaught("/api/v1/trends", "POST", { ...tooMany, headers: noRetry }, /Retry-After is missing/);
    expectCaught(path, "POST", { ...semantic, status: 418 }, /not documented/);
  });
});
