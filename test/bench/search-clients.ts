/**
 * The client paths the benchmarks drive: REST through fetch (Node's undici, which keeps
 * connections alive), gRPC through @grpc/grpc-js over one HTTP/2 connection, and Connect (JSON or
 * binary protobuf, over HTTP/1.1 like the REST path) through @connectrpc/connect-node. Every path
 * sends the same request with the same key; a non-OK answer throws, so a throttled or failing
 * call can never pass for a fast one.
 */

import type { DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { Health, HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { LeadService } from "../../gen/threadsight/v1/leads_pb.js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { TrendService } from "../../gen/threadsight/v1/trends_pb.js";
import { createGrpcJsClient } from "../grpc/grpc-js-client.js";

/** The two search RPCs. */
export type Method = "semantic" | "vector";
/** The four public operations (capacity measures each). */
export type Operation = Method | "trends" | "leads";
/** The protocols measured. */
export type Protocol = "rest" | "grpc" | "connect-json" | "connect-binary";

/** Calls one operation; resolves when the full response has arrived. */
export type SearchCall = (query: string) => Promise<void>;

const REST_PATHS: Record<Operation, string> = {
  semantic: "/api/v1/search/semantic",
  vector: "/api/v1/search/vector",
  trends: "/api/v1/trends",
  leads: "/api/v1/leads",
};

/** The request body for `op` (trends ignore the text: the default window over the latest data). */
function body(op: Operation, query: string): Record<string, unknown> {
  return op === "trends" ? { limit: 10 } : { query, limit: 10 };
}

function descriptor(op: Operation): { service: DescService; method: DescMethodUnary } {
  switch (op) {
    case "semantic":
      return { service: SearchService, method: SearchService.method.semanticSearch };
    case "vector":
      return { service: SearchService, method: SearchService.method.vectorSearch };
    case "trends":
      return { service: TrendService, method: TrendService.method.listTrends };
    case "leads":
      return { service: LeadService, method: LeadService.method.findLeads };
  }
}

/** A REST caller for `op`. */
export function restCall(baseUrl: string, key: string, op: Operation): SearchCall {
  const url = `${baseUrl}${REST_PATHS[op]}`;
  return async (query) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body(op, query)),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`REST ${op} answered ${res.status}: ${text.slice(0, 300)}`);
  };
}

/** A gRPC caller for `op` and the client to close afterwards. */
export function grpcCall(address: string, key: string, op: Operation): { call: SearchCall; close: () => void } {
  const { service, method } = descriptor(op);
  const client = createGrpcJsClient(service, address);
  const fn = (client as unknown as Record<string, (...a: unknown[]) => unknown>)[method.name]!;
  const call: SearchCall = (query) =>
    new Promise((resolve, reject) => {
      const md = new grpc.Metadata();
      md.set("authorization", `Bearer ${key}`);
      fn.call(
        client,
        create(method.input, body(op, query)),
        md,
        { deadline: Date.now() + 30_000 },
        (err: grpc.ServiceError | null) => {
          if (err) reject(new Error(`gRPC ${op} failed: ${err.code} ${err.details}`));
          else resolve();
        },
      );
    });
  return { call, close: () => client.close() };
}

/** A gRPC Health/Check caller (grpc-js, as grpcCall): the bare round trip, no auth, no engine. */
export function healthCheckCall(address: string): { call: () => Promise<void>; close: () => void } {
  const client = createGrpcJsClient(Health, address);
  const fn = (client as unknown as Record<string, (...a: unknown[]) => unknown>).Check!;
  const call = (): Promise<void> =>
    new Promise((resolve, reject) => {
      fn.call(
        client,
        create(HealthCheckRequestSchema),
        { deadline: Date.now() + 30_000 },
        (err: grpc.ServiceError | null) => {
          if (err) reject(new Error(`gRPC Health/Check failed: ${err.code} ${err.details}`));
          else resolve();
        },
      );
    });
  return { call, close: () => client.close() };
}

/** A Connect-protocol caller for `op` over HTTP/1.1, JSON or binary protobuf. */
export function connectCall(baseUrl: string, key: string, op: Operation, binary: boolean): SearchCall {
  const { service, method } = descriptor(op);
  const transport = createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: binary });
  const client = createClient(service, transport) as unknown as Record<
    string,
    (req: unknown, opts: unknown) => Promise<unknown>
  >;
  const fn = client[method.localName]!;
  return async (query) => {
    await fn(body(op, query), { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });
  };
}
