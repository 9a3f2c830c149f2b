/**
 * Every REST error class against a real listening service: exact status, reason, message and
 * headers, and every body validated against the spec's contract schema.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { rest } from "./rest-client.js";

const SEMANTIC = "/api/v1/search/semantic";
const VECTOR = "/api/v1/search/vector";

describe("REST error classes", () => {
  let svc: RunningService;
  let key: string;
  before(async () => {
    svc = await startService();
    key = await svc.createKey("enterprise");
  });
  after(async () => svc.stop());

  function expectError(
    res: { status: number; body: any; headers: Headers },
    status: number,
    code: string,
    reason: string,
    message?: RegExp,
  ): void {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, code);
    assert.equal(res.body.error.reason, reason);
    if (message) assert.match(res.body.error.message, message);
    assert.equal(res.body.error.request_id, res.headers.get("x-request-id"));
  }

  test("malformed JSON is 400 MALFORMED_JSON", async () => {
    const res = await rest(svc.url, SEMANTIC, {
      key,
      rawBody: '{"query": "x",',
      headers: { "content-type": "application/json" },
    });
    expectError(res, 400, "invalid_argument", "MALFORMED_JSON", /not valid JSON/);
  });

  test("a compressed body (gzip, deflate, br) is read; other codings, bad data and bombs are refused by name", async () => {
    const json = Buffer.from(JSON.stringify({ query: "stripe vs paypal fees", limit: 2 }));
    for (const [coding, bytes] of [
      ["gzip", gzipSync(json)],
      ["deflate", deflateSync(json)],
      ["br", brotliCompressSync(json)],
    ] as const) {
      const res = await rest(svc.url, SEMANTIC, {
        key,
        rawBody: bytes,
        headers: { "content-type": "application/json", "content-encoding": coding },
      });
      assert.equal(res.status, 200, `${coding}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.data.query, "stripe vs paypal fees");
    }
    const zstd = await rest(svc.url, SEMANTIC, {
      key,
      rawBody: json,
      headers: { "content-type": "application/json", "content-encoding": "zstd" },
    });
    expectError(
      zstd,
      415,
      "invalid_argument",
      "UNSUPPORTED_MEDIA_TYPE",
      /^Content-Encoding "zstd" is not supported on request bodies; send the body uncompressed or with one of gzip, deflate, br$/,
    );
    assert.equal(zstd.headers.get("accept-encoding"), "gzip, deflate, br");
    const notGzip = await rest(svc.url, SEMANTIC, {
      key,
      rawBody: json,
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expectError(notGzip, 400, "invalid_argument", "MALFORMED_JSON", /^the request body is not valid gzip data/);
    // Well under the body limit compressed, 1 MiB once inflated.
    const bomb = gzipSync(Buffer.from(`{"query": "${"a".repeat(1 << 20)}"}`));
    const big = await rest(svc.url, SEMANTIC, {
      key,
      rawBody: bomb,
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expectError(big, 413, "resource_exhausted", "PAYLOAD_TOO_LARGE", /at most \d+ bytes once decompressed/);
  });

  test("an unknown field is named, with a suggestion", async () => {
    const res = await rest(svc.url, SEMANTIC, { key, body: { query: "crm", limt: 5 } });
    expectError(res, 400, "invalid_argument", "UNKNOWN_FIELD", /unknown field "limt" \(did you mean "limit"\?\)/);
  });

  test("a wrong type is 400 WRONG_TYPE naming the field", async () => {
    const res = await rest(svc.url, SEMANTIC, { key, body: { query: "crm", limit: "10" } });
    expectError(res, 400, "invalid_argument", "WRONG_TYPE", /^limit must be an integer/);
    const arr = await rest(svc.url, SEMANTIC, { key, body: { query: ["crm"] } });
    expectError(arr, 400, "invalid_argument", "WRONG_TYPE", /^query must be a string, got array/);
    const notObject = await rest(svc.url, SEMANTIC, { key, body: [1, 2] });
    expectError(notObject, 400, "invalid_argument", "WRONG_TYPE", /body must be a JSON object/);
  });

  test("a missing or blank required field is 400 MISSING_FIELD", async () => {
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: {} }),
      400,
      "invalid_argument",
      "MISSING_FIELD",
      /^query is required/,
    );
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: "   " } }),
      400,
      "invalid_argument",
      "MISSING_FIELD",
      /^query is required/,
    );
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: null } }),
      400,
      "invalid_argument",
      "MISSING_FIELD",
    );
  });

  test("out-of-range values are 400 OUT_OF_RANGE with the bound and the value", async () => {
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: "crm", limit: 500 } }),
      400,
      "invalid_argument",
      "OUT_OF_RANGE",
      /^limit must be between 1 and 100, got 500$/,
    );
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: "crm", limit: 0 } }),
      400,
      "invalid_argument",
      "OUT_OF_RANGE",
      /got 0$/,
    );
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: "crm", limit: 1e12 } }),
      400,
      "invalid_argument",
      "OUT_OF_RANGE",
      /32-bit/,
    );
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: "x".repeat(501) } }),
      400,
      "invalid_argument",
      "OUT_OF_RANGE",
      /at most 500 characters, got 501/,
    );
    expectError(
      await rest(svc.url, "/api/v1/leads", { key, body: { query: "crm", min_score: 101 } }),
      400,
      "invalid_argument",
      "OUT_OF_RANGE",
      /^min_score must be between 0 and 100, got 101$/,
    );
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: "crm", min_relevance: 1.5 } }),
      400,
      "invalid_argument",
      "OUT_OF_RANGE",
      /^min_relevance must be between 0 and 1, got 1\.5$/,
    );
    expectError(
      await rest(svc.url, SEMANTIC, { key, body: { query: "crm", min_relevance: "high" } }),
      400,
      "invalid_argument",
      "WRONG_TYPE",
      /^min_relevance must be a number/,
    );
  });

  test("bad dates are 400 INVALID_DATE", async () => {
    expectError(
      await rest(svc.url, VECTOR, { key, body: { query: "crm", start_date: "2024-02-30" } }),
      400,
      "invalid_argument",
      "INVALID_DATE",
      /not a real calendar date: "2024-02-30"/,
    );
    expectError(
      await rest(svc.url, VECTOR, { key, body: { query: "crm", end_date: "03/01/2024" } }),
      400,
      "invalid_argument",
      "INVALID_DATE",
      /YYYY-MM-DD/,
    );
    expectError(
      await rest(svc.url, VECTOR, { key, body: { query: "crm", start_date: "2024-03-02", end_date: "2024-03-01" } }),
      400,
      "invalid_argument",
      "INVALID_DATE",
      /start_date must not be after end_date/,
    );
  });

  test("a wrong content type is 415", async () => {
    const res = await rest(svc.url, SEMANTIC, {
      key,
      rawBody: "query=crm",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expectError(res, 415, "invalid_argument", "UNSUPPORTED_MEDIA_TYPE", /must be application\/json/);
  });

  test("a body over the documented size is 413", async () => {
    const res = await rest(svc.url, SEMANTIC, { key, body: { query: "x", subforums: ["y".repeat(70_000)] } });
    expectError(res, 413, "resource_exhausted", "PAYLOAD_TOO_LARGE", /at most 65536 bytes/);
  });

  test("an unknown path is 404 and a wrong method is 405 with Allow", async () => {
    expectError(
      await rest(svc.url, "/api/v1/search/nothing", { key, body: {} }),
      404,
      "not_found",
      "NOT_FOUND",
      /^no route for POST \/api\/v1\/search\/nothing$/,
    );
    // A path a few characters off one we serve is named.
    const near: [string, string][] = [
      ["/api/v1/search/semantic/", "/api/v1/search/semantic"],
      ["/api/v1/search/semntic", "/api/v1/search/semantic"],
      ["/API/v1/Leads", "/api/v1/leads"],
      ["/v1/trend", "/v1/trends"],
    ];
    for (const [path, meant] of near) {
      expectError(
        await rest(svc.url, path, { key, body: {} }),
        404,
        "not_found",
        "NOT_FOUND",
        new RegExp(
          `^no route for POST ${path.replace(/[/]/g, "\\/")}; did you mean ${meant.replace(/[/]/g, "\\/")}\\?$`,
        ),
      );
    }
    const wrong = await rest(svc.url, SEMANTIC, { key, method: "GET" });
    expectError(wrong, 405, "unimplemented", "METHOD_NOT_ALLOWED", /use POST/);
    assert.equal(wrong.headers.get("allow"), "POST");
    const usage = await rest(svc.url, "/api/v1/usage", { key, method: "DELETE" });
    assert.equal(usage.headers.get("allow"), "GET, HEAD");
  });

  test("a missing key is 401 with WWW-Authenticate: Bearer", async () => {
    const res = await rest(svc.url, SEMANTIC, { body: { query: "crm" } });
    expectError(res, 401, "unauthenticated", "INVALID_API_KEY", /missing API key/);
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="threadsight"');
  });

  test("an invalid or malformed key is 401 with error=invalid_token", async () => {
    // Well-formed (a real key with its last character changed) but wrong.
    const last = key.at(-1) === "a" ? "b" : "a";
    const res = await rest(svc.url, SEMANTIC, { key: `${key.slice(0, -1)}${last}`, body: { query: "crm" } });
    expectError(res, 401, "unauthenticated", "INVALID_API_KEY", /invalid API key/);
    const garbage = await rest(svc.url, SEMANTIC, { key: "ts_live_nope", body: { query: "crm" } });
    expectError(garbage, 401, "unauthenticated", "INVALID_API_KEY", /not a key we issued/);
    // A wrong-length, wrong-prefix key gets the very same answer as an unknown one.
    const hello = await rest(svc.url, SEMANTIC, { key: "hello", body: { query: "crm" } });
    expectError(hello, 401, "unauthenticated", "INVALID_API_KEY", /not a key we issued/);
    assert.equal(hello.body.error.message, res.body.error.message, "a wrong-shape key and an unknown key answer alike");
    assert.equal(hello.headers.get("www-authenticate"), res.headers.get("www-authenticate"));
    assert.doesNotMatch(hello.body.error.message, /malformed/);
    assert.match(res.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    const basic = await rest(svc.url, SEMANTIC, {
      headers: { authorization: "Basic dXNlcjpwYXNz" },
      body: { query: "crm" },
    });
    expectError(basic, 401, "unauthenticated", "INVALID_API_KEY", /expected "Bearer <API key>"/);
  });

  test("authentication comes before body validation", async () => {
    const res = await rest(svc.url, SEMANTIC, { body: { query: "crm", limt: 1 } });
    assert.equal(res.status, 401);
  });

  test("a revoked key is 401 API_KEY_REVOKED", async () => {
    const created = await svc.service.keys.createKey({
      accountName: "revoked-account",
      plan: "pro",
      name: "to revoke",
    });
    await svc.service.keys.revokeKey(created.info.id);
    const res = await rest(svc.url, SEMANTIC, { key: created.key, body: { query: "crm" } });
    expectError(res, 401, "unauthenticated", "API_KEY_REVOKED", /revoked/);
  });

  test("the /v1 alias answers like /api/v1", async () => {
    const res = await rest(svc.url, "/v1/search/semantic", { key, body: { query: "crm", limt: 1 } });
    expectError(res, 400, "invalid_argument", "UNKNOWN_FIELD");
  });

  test("the request id is echoed when sane and generated otherwise", async () => {
    const echoed = await rest(svc.url, SEMANTIC, { key, body: {}, headers: { "x-request-id": "abc-123" } });
    assert.equal(echoed.headers.get("x-request-id"), "abc-123");
    assert.equal(echoed.body.error.request_id, "abc-123");
    const replaced = await rest(svc.url, SEMANTIC, {
      key,
      body: {},
      headers: { "x-request-id": "bad id with spaces" },
    });
    assert.notEqual(replaced.headers.get("x-request-id"), "bad id with spaces");
  });

  test("client mistakes never leave a stack trace or internals in the body", async () => {
    const res = await rest(svc.url, SEMANTIC, {
      key,
      rawBody: "[".repeat(100_000),
      headers: { "content-type": "application/json" },
    });
    assert.ok(res.status === 400 || res.status === 413, String(res.status));
    assert.doesNotMatch(JSON.stringify(res.body), /at .*\.(ts|js):\d+/);
  });
});

describe("REST plan and limit errors", () => {
  test("Variant A Free has no API access: 403 PLAN_NO_API_ACCESS", async () => {
    const { PACKAGE_ROOT } = await import("../../src/package-root.js");
    const svc = await startService({ env: { PLANS_FILE: `${PACKAGE_ROOT}/config/plans/variant-a.json` } });
    try {
      const key = await svc.createKey("free");
      const res = await rest(svc.url, SEMANTIC, { key, body: { query: "crm" } });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, "permission_denied");
      assert.equal(res.body.error.reason, "PLAN_NO_API_ACCESS");
      assert.match(res.body.error.message, /Pro/);
    } finally {
      await svc.stop();
    }
  });

  test("Variant B Free: the 4th call in a minute is 429 with Retry-After and limit headers", async () => {
    const svc = await startService();
    try {
      const key = await svc.createKey("free");
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await rest(svc.url, VECTOR, { key, body: { query: `crm ${i}` } });
        statuses.push(last.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.ok(["RATE_LIMITED", "QUOTA_EXCEEDED"].includes(last!.body.error.reason), last!.body.error.reason);
      assert.equal(last!.body.error.code, "resource_exhausted");
      assert.match(last!.headers.get("retry-after") ?? "", /^\d+$/);
      assert.equal(last!.headers.get("x-ratelimit-limit"), "3");
      assert.equal(last!.headers.get("x-quota-limit"), "3");
      assert.equal(last!.headers.get("x-quota-remaining"), "0");
    } finally {
      await svc.stop();
    }
  });
});
