/**
 * Server-side failure paths that a healthy service cannot be made to produce from outside:
 * a handler that throws unexpectedly (500, generic message, details only in the log), and TLS
 * with ALPN on the one port. Uses buildServer directly with a real authenticator stand-in.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import type { FastifyInstance } from "fastify";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import type { AuthResult } from "../../src/accounts/caller.js";
import { createLogger } from "../../src/observability/logger.js";
import { createRpcMetrics } from "../../src/observability/metrics.js";
import { buildServer } from "../../src/server.js";
import { callUnaryWithMetadata, createGrpcJsClient, grpcJsDefinition } from "../grpc/grpc-js-client.js";
import { rest } from "./rest-client.js";

const SECRET = "password=hunter2 host=db.internal";
const METRICS_TOKEN = "metrics-token-for-the-fault-tests";
const authenticator = {
  async authenticate(key: string | undefined): Promise<AuthResult> {
    return key === "good"
      ? { ok: true, caller: { keyId: "k", accountId: "a", plan: "pro", overrides: {} } }
      : { ok: false, failure: key === undefined ? "missing" : "unknown" };
  },
};

async function start(logs: string[], tls?: { cert: string; key: string }): Promise<FastifyInstance> {
  const sink = new Writable({ write: (c: Buffer, _e, done) => (logs.push(c.toString()), done()) });
  const app = await buildServer({
    config: {
      maxBodyBytes: 65536,
      requestTimeoutMs: 5000,
      shutdownTimeoutMs: 1000,
      tlsCertFile: tls?.cert,
      tlsKeyFile: tls?.key,
      metricsAccess: { address: undefined, token: METRICS_TOKEN },
    },
    logger: createLogger("info", sink),
    metrics: createRpcMetrics(),
    authenticator,
    implementations: {
      search: {
        async semanticSearch() {
          throw new Error(`connection failed: ${SECRET}`);
        },
      },
    },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return app;
}

describe("unexpected failures", () => {
  const logs: string[] = [];
  let app: FastifyInstance;
  let url: string;
  before(async () => {
    app = await start(logs);
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  after(async () => app.close());

  test("REST: 500 INTERNAL with a generic message; the cause is only in the log", async () => {
    const res = await rest(url, "/api/v1/search/semantic", { key: "good", body: { query: "x" } });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.reason, "INTERNAL");
    assert.equal(res.body.error.message, `internal error (request id ${res.body.error.request_id})`);
    assert.doesNotMatch(JSON.stringify(res.body), /hunter2|db\.internal|at .*:\d+/);
    assert.ok(
      logs.some((l) => l.includes("hunter2") && l.includes(res.body.error.request_id)),
      "the log keeps the cause",
    );
  });

  test("gRPC: INTERNAL with the same generic message", async () => {
    const client = createGrpcJsClient(SearchService, url.replace("http://", ""));
    const out = await callUnaryWithMetadata(
      client,
      SearchService.method.semanticSearch,
      { query: "x" },
      { authorization: "Bearer good" },
    );
    client.close();
    assert.equal(out.error?.code, grpc.status.INTERNAL);
    assert.match(out.error!.details, /^internal error \(request id [\w-]+\)$/);
  });

  test("unimplemented RPCs say so", async () => {
    const res = await rest(url, "/api/v1/trends", { key: "good", body: {} });
    assert.equal(res.status, 501);
    assert.equal(res.body.error.reason, "UNIMPLEMENTED");
  });

  test("metrics count calls by protocol and code", async () => {
    const text = await (
      await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    assert.match(
      text,
      /threadsight_rpc_requests_total\{service="threadsight.v1.SearchService",method="SemanticSearch",protocol="rest",code="internal"\} [1-9]/,
    );
    assert.match(text, /protocol="grpc",code="internal"/);
  });
});

describe("TLS with ALPN on the one port", () => {
  let app: FastifyInstance;
  let port: number;
  let cert: string;
  before(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-tls-"));
    cert = path.join(dir, "cert.pem");
    const key = path.join(dir, "key.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    app = await start([], { cert, key });
    port = (app.server.address() as { port: number }).port;
  });
  after(async () => app.close());

  test("HTTP/1.1 over TLS answers REST", async () => {
    // Async: a synchronous child would block the event loop this server runs on.
    const { stdout } = await promisify(execFile)("curl", [
      "-s",
      "--http1.1",
      "-w",
      " %{http_version}",
      "--cacert",
      cert,
      `https://localhost:${port}/healthz`,
    ]);
    assert.equal(stdout, '{"status":"ok"} 1.1');
  });

  test("gRPC over TLS (h2 via ALPN) answers", async () => {
    const Client = grpc.makeGenericClientConstructor(grpcJsDefinition(SearchService), "SearchService");
    const { readFileSync } = await import("node:fs");
    const client = new Client(`localhost:${port}`, grpc.credentials.createSsl(readFileSync(cert)));
    const out = await callUnaryWithMetadata(client, SearchService.method.semanticSearch, { query: "x" }, {});
    client.close();
    assert.equal(out.error?.code, grpc.status.UNAUTHENTICATED);
  });
});
