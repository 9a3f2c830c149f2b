/**
 * The limits interceptor on a real HTTP/2 listener (connect-node adapter): headers on success
 * for Connect, gRPC and gRPC-Web clients, and, with a real @grpc/grpc-js client, the limit
 * values and Retry-After arriving as gRPC trailers on a 429 together with the RetryInfo detail.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import {
  connectNodeAdapter,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import type { SemanticSearchRequest, SemanticSearchResponse } from "../../gen/threadsight/v1/search_pb.js";
import {
  SearchService,
  SemanticSearchRequestSchema,
  SemanticSearchResponseSchema,
  VectorSearchResponseSchema,
} from "../../gen/threadsight/v1/search_pb.js";
import { CALLER } from "../../src/auth/context.js";
import { createLimitsInterceptor } from "../../src/limits/limits-interceptor.js";
import type { Limits } from "../../src/limits/open-limits.js";
import { callerOn, limitsFor, litePlan, tempDir } from "./fixtures.js";

describe("limits over Connect, gRPC and gRPC-Web on HTTP/2", () => {
  const dir = tempDir();
  let limits: Limits;
  let server: http2.Http2Server;
  let baseUrl: string;
  let port: number;
  const recorded: string[] = [];
  // One caller per x-test-key value, made on first sight; each protocol uses its own key.
  const callers = new Map<string, ReturnType<typeof callerOn>>();
  const setCaller: Interceptor = (next) => async (req) => {
    const name = req.header.get("x-test-key") ?? "";
    if (!callers.has(name)) callers.set(name, callerOn("lite"));
    req.contextValues.set(CALLER, callers.get(name));
    return next(req);
  };

  const sessions = new Set<http2.ServerHttp2Session>();
  before(async () => {
    limits = await limitsFor(litePlan(2, 100), { dataDir: dir });
    const handler = connectNodeAdapter({
      routes: (router) =>
        router.service(SearchService, {
          semanticSearch: async (req) => create(SemanticSearchResponseSchema, { query: req.query }),
          vectorSearch: async (req) => create(VectorSearchResponseSchema, { query: req.query }),
        }),
      interceptors: [
        setCaller,
        createLimitsInterceptor({
          enforcer: limits.enforcer,
          usage: { recordUsage: async (k, _d, op) => void recorded.push(`${k}:${op}`) },
        }),
      ],
    });
    server = http2.createServer(handler);
    server.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    baseUrl = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    // Clients keep HTTP/2 sessions open; close() waits for every session to end.
    for (const session of sessions) session.destroy();
    await new Promise((resolve) => server.close(resolve));
    await limits.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const transports: [string, () => Transport][] = [
    ["Connect", () => createConnectTransport({ baseUrl, httpVersion: "2" })],
    ["gRPC", () => createGrpcTransport({ baseUrl })],
    ["gRPC-Web", () => createGrpcWebTransport({ baseUrl, httpVersion: "2" })],
  ];
  for (const [name, make] of transports) {
    it(`${name}: limit headers on success, 429 with the same values and Retry-After on refusal`, async () => {
      const client = createClient(SearchService, make());
      const headers = { "x-test-key": name };
      let header = new Headers();
      await client.semanticSearch({ query: "a" }, { headers, onHeader: (h) => (header = h) });
      assert.equal(header.get("x-quota-remaining"), "1");
      assert.equal(header.get("x-ratelimit-remaining"), "99");
      await client.semanticSearch({ query: "b" }, { headers });
      const err = await client.semanticSearch({ query: "c" }, { headers }).catch((e: unknown) => ConnectError.from(e));
      assert.ok(err instanceof ConnectError);
      assert.equal(err.code, Code.ResourceExhausted);
      assert.equal(err.metadata.get("x-quota-remaining"), "0");
      assert.ok(Number(err.metadata.get("retry-after")) >= 1);
      const keyId = callers.get(name)!.keyId;
      assert.deepEqual(
        recorded.filter((r) => r.startsWith(keyId)),
        [`${keyId}:semantic_search`, `${keyId}:semantic_search`],
        "two admitted calls recorded once each",
      );
    });
  }

  it("a @grpc/grpc-js client gets the headers as initial metadata, and on a 429 as trailers", async () => {
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const call = (query: string) =>
      new Promise<{
        err: grpc.ServiceError | null;
        headers: grpc.Metadata | undefined;
        trailers: grpc.Metadata | undefined;
      }>((resolve) => {
        const md = new grpc.Metadata();
        md.set("x-test-key", "grpc-js");
        let headers: grpc.Metadata | undefined;
        let trailers: grpc.Metadata | undefined;
        let err: grpc.ServiceError | null = null;
        let pending = 2;
        const done = () => --pending === 0 && resolve({ err, headers, trailers });
        const c = client.makeUnaryRequest<SemanticSearchRequest, SemanticSearchResponse>(
          "/threadsight.v1.SearchService/SemanticSearch",
          (m) => Buffer.from(toBinary(SemanticSearchRequestSchema, m)),
          (b) => fromBinary(SemanticSearchResponseSchema, b),
          create(SemanticSearchRequestSchema, { query }),
          md,
          (e) => {
            err = e;
            done();
          },
        );
        c.on("metadata", (m) => (headers = m));
        c.on("status", (s) => {
          trailers = s.metadata;
          done();
        });
      });
    try {
      const ok = await call("a");
      assert.equal(ok.err, null);
      assert.equal(ok.headers?.get("x-quota-limit")[0], "2");
      assert.equal(ok.headers?.get("x-quota-remaining")[0], "1");
      await call("b");
      const refused = await call("c");
      assert.equal(refused.err?.code, grpc.status.RESOURCE_EXHAUSTED);
      assert.equal(refused.trailers?.get("x-quota-remaining")[0], "0");
      assert.ok(Number(refused.trailers?.get("retry-after")[0]) >= 1);
      assert.equal(
        refused.trailers?.get("grpc-status-details-bin").length,
        1,
        "RetryInfo/QuotaFailure/ErrorInfo travel as status details",
      );
    } finally {
      client.close();
    }
  });
});
