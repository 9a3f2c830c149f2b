/**
 * /metrics is not public: by default the API port does not serve it; with METRICS_TOKEN it needs
 * that bearer token; with METRICS_ADDRESS it is served on its own listener (token too, if set).
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import type { AuthResult } from "../../src/accounts/caller.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/observability/logger.js";
import { createRpcMetrics } from "../../src/observability/metrics.js";
import type { MetricsAccess } from "../../src/observability/metrics-access.js";
import { startMetricsListener } from "../../src/observability/metrics-access.js";
import { buildServer } from "../../src/server.js";

const TOKEN = "a-metrics-token-of-some-length";

async function start(metricsAccess: MetricsAccess | undefined): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer({
    config: {
      maxBodyBytes: 65536,
      requestTimeoutMs: 5000,
      shutdownTimeoutMs: 1000,
      tlsCertFile: undefined,
      tlsKeyFile: undefined,
      ...(metricsAccess ? { metricsAccess } : {}),
    },
    logger: createLogger("silent"),
    metrics: createRpcMetrics(),
    authenticator: {
      async authenticate(): Promise<AuthResult> {
        return { ok: false, failure: "unknown" };
      },
    },
    implementations: {},
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

describe("/metrics access", () => {
  const apps: FastifyInstance[] = [];
  after(async () => {
    for (const app of apps) await app.close();
  });

  test("by default the public port does not serve /metrics", async () => {
    const { app, url } = await start(loadConfig({}).metricsAccess);
    apps.push(app);
    assert.equal((await fetch(`${url}/metrics`)).status, 404);
  });

  test("with METRICS_TOKEN the public port serves it only with that bearer token", async () => {
    const { app, url } = await start(loadConfig({ METRICS_TOKEN: TOKEN }).metricsAccess);
    apps.push(app);
    const none = await fetch(`${url}/metrics`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.equal((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status, 401);
    const ok = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /threadsight_process_cpu_user_seconds_total/);
  });

  test("with METRICS_ADDRESS it moves to its own listener, off the public port", async () => {
    const access = loadConfig({ METRICS_ADDRESS: "127.0.0.1:0", METRICS_TOKEN: TOKEN }).metricsAccess;
    const { app, url } = await start(access);
    apps.push(app);
    assert.equal(
      (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      404,
      "not on the public port",
    );
    const metrics = createRpcMetrics();
    const listener = await startMetricsListener(metrics.registry, { ...access, address: access.address! });
    try {
      const base = `http://127.0.0.1:${listener.port}`;
      assert.equal((await fetch(`${base}/metrics`)).status, 401, "the token still applies");
      const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /threadsight_process_cpu_user_seconds_total/);
      assert.equal((await fetch(`${base}/api/v1/search/vector`)).status, 404, "nothing else is served there");
    } finally {
      await listener.close();
    }
  });

  test("bad settings are refused by name", () => {
    assert.throws(
      () => loadConfig({ METRICS_ADDRESS: "9464" }),
      (e: unknown) => e instanceof ConfigError && /METRICS_ADDRESS must be host:port/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: "short" }),
      (e: unknown) => e instanceof ConfigError && /METRICS_TOKEN must be at least 16 characters/.test(e.message),
    );
    assert.deepEqual(loadConfig({ METRICS_ADDRESS: "[::1]:9464" }).metricsAccess.address, { host: "::1", port: 9464 });
  });
});
