/**
 * The two client paths the latency benchmark drives: REST through fetch (Node's undici, which
 * keeps connections alive) and gRPC through @grpc/grpc-js over one HTTP/2 connection. Both send
 * the same request with the same key; a non-OK answer throws, so a throttled or failing call can
 * never pass for a fast one.
 */
import * as grpc from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { createGrpcJsClient } from "../grpc/grpc-js-client.js";

/** The two RPCs measured. */
export type Method = "semantic" | "vector";
/** The two protocols measured. */
export type Protocol = "rest" | "grpc";

/** Calls one search; resolves when the full response has arrived. */
export type SearchCall = (query: string) => Promise<void>;

/** A REST caller for `method`. */
export function restCall(baseUrl: string, key: string, method: Method): SearchCall {
  const url = `${baseUrl}/api/v1/search/${method}`;
  return async (query) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, limit: 10 }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`REST ${method} answered ${res.status}: ${text.slice(0, 300)}`);
  };
}

/** A gRPC caller for `method` and the client to close afterwards. */
export function grpcCall(address: string, key: string, method: Method): { call: SearchCall; close: () => void } {
  const client = createGrpcJsClient(SearchService, address);
  const desc = method === "semantic" ? SearchService.method.semanticSearch : SearchService.method.vectorSearch;
  const fn = (client as unknown as Record<string, (...a: unknown[]) => unknown>)[desc.name]!;
  const call: SearchCall = (query) =>
    new Promise((resolve, reject) => {
      const md = new grpc.Metadata();
      md.set("authorization", `Bearer ${key}`);
      fn.call(client, create(desc.input, { query, limit: 10 }), md, { deadline: Date.now() + 30_000 }, (err: grpc.ServiceError | null) => {
        if (err) reject(new Error(`gRPC ${method} failed: ${err.code} ${err.details}`));
        else resolve();
      });
    });
  return { call, close: () => client.close() };
}
