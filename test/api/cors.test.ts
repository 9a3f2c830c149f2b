import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import type { AuthResult } from "../../src/accounts/caller.js";
import { createLogger } from "../../src/observability/logger.js";
import { createRpcMetrics } from "../../src/observability/metrics.js";
import { buildServer } from "../../src/server.js";

async function start(corsOrigins: string[]): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer({
    config: {
      maxBodyBytes: 65536,
      requestTimeoutMs: 5000,
      shutdownTimeoutMs: 1000,
      tlsCertFile: undefined,
      tlsKeyFile: undefined,
      corsOrigins,
    },
    logger: createLogger("silent"),
    metrics: createRpcMetrics(),
    authenticator: {
      async authenticate(key: string | undefined): Promise<AuthResult> {
        return key === "good"
          ? { ok: true, caller: { keyId: "k", accountId: "a", plan: "pro", overrides: {} } }
          : { ok: false, failure: "unknown" };
      },
    },
    implementations: {
      search: {
        async semanticSearch(req) {
          return { query: req.query, results: [] };
        },
      },
    },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

describe("CORS", () => {
  let off: { app: FastifyInstance; url: string };
  let on: { app: FastifyInstance; url: string };
  before(async () => {
    off = await start([]);
    on = await start(["https://app.example.com"]);
  });
  after(async () => {
    await off.app.close();
    await on.app.close();
  });

  test("off by default: no CORS headers, preflight not answered", async () => {
    const res = await fetch(`${off.url}/api/v1/search/semantic`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
    });
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    assert.notEqual(res.status, 204);
  });

  test("a listed origin gets a preflight answer and exposed limit headers", async () => {
    const pre = await fetch(`${on.url}/api/v1/search/semantic`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "https://app.example.com");
    assert.match(pre.headers.get("access-control-allow-headers") ?? "", /authorization/);
    const res = await fetch(`${on.url}/api/v1/search/semantic`, {
      method: "POST",
      headers: { origin: "https://app.example.com", "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example.com");
    assert.match(res.headers.get("access-control-expose-headers") ?? "", /x-ratelimit-remaining/);
    // An answer says it varies by Origin and, since large ones are gzipped, by Accept-Encoding.
    const ok = await fetch(`${on.url}/api/v1/search/semantic`, {
      method: "POST",
      headers: { origin: "https://app.example.com", authorization: "Bearer good", "content-type": "application/json" },
      body: '{"query": "crm"}',
    });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal(ok.headers.get("vary"), "Origin, Accept-Encoding");
  });

  test("an unlisted origin gets nothing", async () => {
    const res = await fetch(`${on.url}/api/v1/search/semantic`, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(res.headers.get("access-control-allow-origin"), null);
  });
});
