/**
 * Opens a weaviate-client v3 connection from the HTTP URL, optional gRPC endpoint and API key
 * in Config. Shared by every Weaviate-backed store so they all read the settings one way.
 *
 * It also makes the caller's AbortSignal cancel the gRPC call itself (see withCallSignal).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import weaviate, { ApiKey, ConnectionGRPC } from "weaviate-client";
import type { WeaviateClient } from "weaviate-client";

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
export function parseHostPort(value: string | undefined, defaultHost: string, defaultPort: number): { host: string; port: number; secure?: boolean } {
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
 * client's pieces that send gRPC (Searcher, Aggregator, Batcher) all route the call through one
 * per-instance `sendWithTimeout(send)`; the signal given to `send` is handed to nice-grpc, whose
 * abort cancels the grpc-js call (RST_STREAM CANCEL) and stops the retry loop. So every
 * connection the client opens gets its gRPC factory wrapped, and each sender it builds passes
 * AbortSignal.any([client timer, caller's signal]) instead. The caller's signal travels in an
 * AsyncLocalStorage because the public methods have no parameter for it. A per-request client
 * with a short timeout would also cancel, but it opens a new channel (TCP + HTTP/2 + init
 * checks) per call. If a future client version changes these internals, the wrapper finds no
 * `sendWithTimeout` and leaves the sender as it is (cancellation degrades to abandoning the
 * wait); test/faults/deadline-abort.test.ts fails in that case.
 */
const callSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` so that every Weaviate gRPC call it starts is cancelled when `signal` fires. */
export function withCallSignal<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  return signal ? callSignal.run(signal, work) : work();
}

type Send = <T>(send: (signal: AbortSignal) => Promise<T>) => Promise<T>;
type GrpcFactory = Record<string, unknown>;
type ConnectionUse = (params: unknown) => unknown;

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
      wrapConnection((r as { connection: object }).connection);
      return r;
    };
    return made instanceof Promise ? made.then(hook) : hook(made);
  };
}

/** Makes `connection.grpc` (replaced on reconnect) hand out senders that honour the caller's signal. */
function wrapConnection(connection: object): void {
  let raw = (connection as { grpc?: GrpcFactory }).grpc;
  if (!raw) return;
  let wrapped = wrapFactory(raw);
  Object.defineProperty(connection, "grpc", {
    configurable: true,
    get: () => wrapped,
    set: (next: GrpcFactory) => {
      raw = next;
      wrapped = wrapFactory(next);
    },
  });
}

function wrapFactory(raw: GrpcFactory): GrpcFactory {
  const out: GrpcFactory = { ...raw };
  for (const name of ["search", "aggregate", "batch"]) {
    const make = raw[name];
    if (typeof make !== "function") continue;
    out[name] = (...args: unknown[]) => bindCallSignal((make as (...a: unknown[]) => object)(...args));
  }
  return out;
}

function bindCallSignal(sender: object): object {
  const own = (sender as { sendWithTimeout?: Send }).sendWithTimeout;
  if (typeof own !== "function") return sender;
  const send: Send = (call) => own((timer) => {
    const caller = callSignal.getStore();
    return call(caller ? AbortSignal.any([timer, caller]) : timer);
  });
  (sender as { sendWithTimeout: Send }).sendWithTimeout = send;
  return sender;
}
