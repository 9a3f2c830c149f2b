/**
 * Opens a weaviate-client v3 connection from the HTTP URL, optional gRPC endpoint and API key
 * in Config. Shared by every Weaviate-backed store so they all read the settings one way.
 *
 * It also makes the caller's AbortSignal cancel the gRPC call itself (see withCallSignal).
 */

import type { WeaviateClient } from "weaviate-client";
import weaviate, { ApiKey, ConnectionGRPC } from "weaviate-client";

/** Where and how to reach Weaviate. */
export interface WeaviateEndpoint {
  /** HTTP endpoint, e.g. http://127.0.0.1:8080 (a path prefix is kept for proxies). */
  httpUrl: string;
  /** gRPC endpoint as host:port (a scheme is allowed); defaults to the HTTP host on 50051. */
  grpcUrl?: string;
  apiKey?: string;
}

/** Default gRPC port of a Weaviate server. */
export const WEAVIATE_GRPC_PORT = 50051;

/** Connects (the client checks both endpoints before resolving). */
export async function connectWeaviate(endpoint: WeaviateEndpoint): Promise<WeaviateClient> {
  installCallSignals();
  const http = new URL(endpoint.httpUrl);
  const httpSecure = http.protocol === "https:";
  const grpc = parseHostPort(endpoint.grpcUrl, http.hostname, WEAVIATE_GRPC_PORT);
  return weaviate.connectToCustom({
    httpHost: http.hostname,
    httpPort: Number(http.port || (httpSecure ? 443 : 80)),
    httpSecure,
    ...(http.pathname !== "/" ? { httpPath: http.pathname.replace(/\/$/, "") } : {}),
    grpcHost: grpc.host,
    grpcPort: grpc.port,
    grpcSecure: grpc.secure ?? httpSecure,
    ...(endpoint.apiKey ? { authCredentials: new ApiKey(endpoint.apiKey) } : {}),
  });
}

/** host:port, a bare host, or a URL, for the gRPC endpoint. */
export function parseHostPort(
  value: string | undefined,
  defaultHost: string,
  defaultPort: number,
): { host: string; port: number; secure?: boolean } {
  if (!value) return { host: defaultHost, port: defaultPort };
  if (/^[a-z]+:\/\//i.test(value)) {
    const u = new URL(value);
    const secure = u.protocol === "https:" || u.protocol === "grpcs:";
    return { host: u.hostname, port: Number(u.port || (secure ? 443 : defaultPort)), secure };
  }
  const at = value.lastIndexOf(":");
  if (at < 0) return { host: value, port: defaultPort };
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(value.slice(at + 1)) };
}

/*
 * Per-call cancellation. weaviate-client 3.12.1 takes no AbortSignal on its query, aggregate or
 * batch methods: each gRPC call gets a signal from the client's own timer (timeout.query, 30 s)
 * and nothing else, so a caller's deadline could only abandon the wait while the HTTP/2 stream
 * to Weaviate stayed open (and, on UNAVAILABLE, kept being retried) for up to that timer. The
 * client's pieces that send gRPC (Searcher, Aggregator, Batcher) are made afresh for every call
 * by the connection's `search`, `aggregate` and `batch` methods, and each routes its call through
 * its own `sendWithTimeout(send)`; the signal given to `send` is handed to nice-grpc, whose abort
 * cancels the grpc-js call (RST_STREAM CANCEL) and stops the retry loop. So every connection the
 * client opens gets those three methods wrapped, and the sender each one resolves to passes
 * AbortSignal.any([client timer, caller's signal]) instead.
 *
 * The caller's signal reaches those methods without AsyncLocalStorage on purpose: on Node 20 one
 * AsyncLocalStorage in use turns on promise hooks for the whole process, and every call the
 * service answers then pays for them (a cached VectorSearch ~0.45 ms more end to end, a bare
 * Health/Check ~0.15 ms, measured side by side on the embedded index). Instead withCallSignal
 * holds the signal while `start` runs synchronously, and the wrapped methods read it then: the
 * client's query methods (fetchObjects, bm25, hybrid, nearVector) and data.insertMany call them
 * before their first await. A Weaviate call that `start` makes only after an await keeps the
 * client's timer alone (aggregate.overAll first awaits a version check, so count() is one), so a
 * caller that makes several calls in turn wraps each. If a future client version changes these
 * internals, the wrapper finds no `sendWithTimeout` and leaves the sender as it is (cancellation
 * degrades to abandoning the wait); test/faults/deadline-abort.test.ts fails in that case.
 */

/** The signal of the withCallSignal whose `start` is running now, if any. */
let current: AbortSignal | undefined;

/**
 * Runs `start` so that the Weaviate gRPC calls it begins before its first await are cancelled
 * when `signal` fires (see above for which calls those are).
 */
export function withCallSignal<T>(signal: AbortSignal | undefined, start: () => Promise<T>): Promise<T> {
  if (signal === undefined) return start();
  const outer = current;
  current = signal;
  try {
    return start();
  } finally {
    current = outer;
  }
}

type Send = <T>(send: (signal: AbortSignal) => Promise<T>) => Promise<T>;
type ConnectionUse = (params: unknown) => unknown;
type SenderMaker = (...args: unknown[]) => Promise<object>;

let installed = false;

/** Wraps ConnectionGRPC.use once, so every connection made afterwards honours withCallSignal. */
function installCallSignals(): void {
  if (installed) return;
  installed = true;
  const holder = ConnectionGRPC as unknown as { use: ConnectionUse };
  const use = holder.use;
  if (typeof use !== "function") return;
  holder.use = (params: unknown) => {
    const made = use(params);
    const hook = (r: unknown) => {
      wrapConnection((r as { connection: Record<string, unknown> }).connection);
      return r;
    };
    return made instanceof Promise ? made.then(hook) : hook(made);
  };
}

/** Makes the connection's sender factories bind the caller's signal to each sender they make. */
function wrapConnection(connection: Record<string, unknown>): void {
  for (const name of ["search", "aggregate", "batch"]) {
    const make = connection[name];
    if (typeof make !== "function") continue;
    connection[name] = (...args: unknown[]) => {
      const signal = current;
      const made = (make as SenderMaker).apply(connection, args);
      return signal === undefined ? made : Promise.resolve(made).then((sender) => bindCallSignal(sender, signal));
    };
  }
}

/** Makes `sender` (used for one call) send with the client's timer and `caller` combined. */
function bindCallSignal(sender: object, caller: AbortSignal): object {
  const own = (sender as { sendWithTimeout?: Send }).sendWithTimeout;
  if (typeof own !== "function") return sender;
  const send: Send = (call) => own((timer) => call(AbortSignal.any([timer, caller])));
  (sender as { sendWithTimeout: Send }).sendWithTimeout = send;
  return sender;
}
