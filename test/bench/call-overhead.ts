/**
 * Where the milliseconds of one cached-query search call go outside the engine. The service is
 * wired here as createService wires it (same stores, limits, interceptors, handlers, through
 * buildServer), and timed from the inside: probes either side of the limits interceptor, the
 * auth guard, key lookup, admission, usage write, metrics, handler and index call wrapped where
 * they are called, and the HTTP/2 stream's events (arrival, request end, headers, first write,
 * trailers). A gRPC client (@grpc/grpc-js) in this process sends one query again and again (its
 * embedding cached after the first call), one call at a time, so each call's marks are its own.
 *
 * Calls alternate between a client that accepts gzip (grpc-js always offers it; Connect then
 * compresses every answer from 1 KiB) and one answered uncompressed, so the two columns show,
 * interleaved, what response compression costs. A trivial unary RPC (Health/Check through the
 * same transport and interceptors) gives the stack's floor.
 *
 * It writes keys, usage rows and quota counters into the data directory: give it a scratch copy
 * of a kept index (cp -r ~/.cache/threadsight-bench/lancedb-full /tmp/...). For Weaviate it
 * starts the kept benchmark server (THREADSIGHT_BENCH_WEAVIATE, as `npm run bench` does) and the
 * directory only holds the accounts and counters. PLAN=pro measures a plan with a quota.
 *
 * Run: node --import tsx test/bench/call-overhead.ts lancedb|weaviate <scratch dataDir> [calls]
 */

import { randomBytes } from "node:crypto";
import type { ServerHttp2Stream } from "node:http2";
import os from "node:os";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from "../../gen/grpc/health/v1/health_pb.js";
import { SemanticSearchResponseSchema, VectorSearchResponseSchema } from "../../gen/threadsight/v1/search_pb.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { isPlanId } from "../../src/accounts/plan-id.js";
import { retryingUsage } from "../../src/accounts/usage-retry.js";
import { searchService } from "../../src/api/search.js";
import { loadConfig } from "../../src/config.js";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { shorten, shortenPlain } from "../../src/core/snippet.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import { cachedEmbedder } from "../../src/enrich/query-cache.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import { createLimitsInterceptor } from "../../src/limits/limits-interceptor.js";
import { openLimits } from "../../src/limits/open-limits.js";
import { createLogger } from "../../src/observability/logger.js";
import { createRpcMetrics } from "../../src/observability/metrics.js";
import { buildServer } from "../../src/server.js";
import { targetFor } from "./backends.js";
import { PROTOCOL_QUERY } from "./protocol.js";
import type { Method } from "./search-clients.js";
import { grpcCall, healthCheckCall } from "./search-clients.js";
import { median } from "./stats.js";
import type { BenchWeaviate } from "./weaviate-server.js";
import { startBenchWeaviate } from "./weaviate-server.js";

const now = (): number => performance.now();
const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/** Marks of the call in flight (calls run one at a time), and the last result of each timed method. */
let marks: Record<string, number> = {};
const mark = (name: string): void => {
  marks[name] = now();
};
const lastResult = new Map<string, unknown>();
const span = (a: string, b: string): number => (marks[b] ?? Number.NaN) - (marks[a] ?? Number.NaN);

/** A pass-through interceptor marking when the call passes it inwards and outwards. */
function probe(name: string): Interceptor {
  return (next) => async (req) => {
    mark(`${name}:in`);
    try {
      return await next(req);
    } finally {
      mark(`${name}:out`);
    }
  };
}

/** Wraps obj[name] to mark its start and end (and keep its last result). */
function timeMethod<T extends object>(obj: T, name: keyof T & string, label: string): void {
  const original = (obj[name] as unknown as (...a: unknown[]) => unknown).bind(obj);
  (obj as Record<string, unknown>)[name] = (...args: unknown[]) => {
    mark(`${label}:start`);
    let out: unknown;
    try {
      out = original(...args);
    } catch (err) {
      mark(`${label}:end`);
      throw err;
    }
    if (!(out instanceof Promise)) {
      mark(`${label}:end`);
      return out;
    }
    return out.then(
      (v) => (lastResult.set(label, v), mark(`${label}:end`), v),
      (err: unknown) => {
        mark(`${label}:end`);
        throw err;
      },
    );
  };
}

/** The rows reported, in the order a call passes them: [label, from mark, to mark]. */
const STAGES: readonly [string, string, string][] = [
  ["client call .. h2 stream arrives (grpc-js, wire, h2 parse)", "t0", "h2:stream"],
  ["h2 stream .. request body read (Fastify, waiting for the DATA frame)", "h2:stream", "h2:request-end"],
  ["body read .. auth guard (Connect decode, observe, deadline)", "h2:request-end", "guard:start"],
  ["auth: failure guard check", "guard:start", "guard:end"],
  ["auth: key lookup + constant-time verify", "authenticate:start", "authenticate:end"],
  ["limits: admit (rate, then quota)", "admit:start", "admit:end"],
  ["limits in .. handler (admit, deferred-error)", "limits:in", "handler:start"],
  ["handler end .. limits out (usage write, limit headers)", "handler:end", "limits:out"],
  ["limits: usage write", "usage:start", "usage:end"],
  ["limits out .. metrics (auth, deadline unwind)", "limits:out", "metrics:start"],
  ["metrics observe", "metrics:start", "metrics:end"],
  ["metrics .. h2 headers out (Connect encode, compress)", "metrics:end", "h2:respond"],
  ["h2 headers .. first write", "h2:respond", "h2:first-write"],
  ["first write .. trailers (Connect awaits the write)", "h2:first-write", "h2:trailers"],
  ["trailers .. client done (wire, grpc-js decode)", "h2:trailers", "t1"],
];

const [backend, dataDir, callsArg] = process.argv.slice(2);
if ((backend !== "lancedb" && backend !== "weaviate") || dataDir === undefined) {
  throw new Error("usage: call-overhead.ts lancedb|weaviate <scratch dataDir> [calls]");
}
const calls = Number(callsArg ?? 150);
const plan = process.env.PLAN ?? "enterprise";
if (!isPlanId(plan)) throw new Error(`PLAN must be a plan id, got "${plan}"`);
let weaviate: BenchWeaviate | undefined;
let backendEnv: Record<string, string> = {};
if (backend === "weaviate") {
  weaviate = await startBenchWeaviate();
  const { THREADSIGHT_DATA_DIR: _kept, ...env } = targetFor("weaviate", "full", weaviate).env;
  backendEnv = env;
}
const config = loadConfig({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  HOST: "127.0.0.1",
  PORT: "0",
  LOG_LEVEL: "warn",
  EMBED_WORKERS: "1",
  ...backendEnv,
  THREADSIGHT_DATA_DIR: dataDir,
});
const logger = createLogger(config.logLevel, new Writable({ write: (_c, _e, done) => done() }));

const accounts = await openAccountsStore(config);
const keys = createKeyService({ store: accounts, rotationGraceSeconds: config.keyRotationGraceSeconds });
const usage = retryingUsage(accounts);
const limits = await openLimits(config);
const embedder = cachedEmbedder(await createEmbedder(config), 100);
const index = await openSearchIndex(config);
await index.open(embedder.model, embedder.dimensions);
const handlers = searchService(
  new SearchCore({
    index,
    embedder,
    summarizer: createExtractiveSummarizer(),
    hybridAlpha: config.hybridAlpha,
    shortQueryAlpha: config.shortQueryAlpha,
    pageTokens: new PageTokens(randomBytes(32)),
  }),
);
const metrics = createRpcMetrics();
timeMethod(limits.authFailures, "check", "guard");
timeMethod(keys, "authenticate", "authenticate");
timeMethod(limits.enforcer, "admit", "admit");
timeMethod(accounts, "recordUsage", "usage");
timeMethod(index, "hybrid", "engine");
timeMethod(index, "nearVector", "engine");
timeMethod(handlers, "semanticSearch", "handler");
timeMethod(handlers, "vectorSearch", "handler");
timeMethod(metrics, "observe", "metrics");

const app = await buildServer({
  config,
  logger,
  metrics,
  authenticator: keys,
  authGuard: limits.authFailures,
  // The limits interceptor as main.ts wires it, between two probes.
  afterAuth: [probe("limits"), createLimitsInterceptor({ enforcer: limits.enforcer, usage }), probe("inner")],
  implementations: { search: handlers },
  ecosystem: (router) =>
    router.service(Health, {
      check: () => create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVING }),
    }),
});
await app.listen({ port: 0, host: "127.0.0.1" });
let identity = false;
// Runs before the HTTP/2 compatibility layer reads the headers: an "identity" call offers no
// compression, so Connect answers it uncompressed.
app.server.prependListener("stream", (_s: unknown, headers: Record<string, unknown>) => {
  if (identity) delete headers["grpc-accept-encoding"];
});
app.server.on("stream", (stream: ServerHttp2Stream) => {
  mark("h2:stream");
  stream.once("end", () => mark("h2:request-end"));
  const respond = stream.respond.bind(stream);
  stream.respond = (...a: Parameters<typeof respond>) => (mark("h2:respond"), respond(...a));
  const write = stream.write.bind(stream) as (...a: unknown[]) => boolean;
  (stream as unknown as { write: unknown }).write = (...a: unknown[]) => (
    (marks["h2:first-write"] ??= now()), write(...a)
  );
  stream.once("wantTrailers", () => mark("h2:trailers"));
});
const address = `127.0.0.1:${(app.server.address() as { port: number }).port}`;
const { key } = await keys.createKey({
  accountName: "call-overhead",
  plan,
  name: `call-overhead ${Date.now()}`,
  overrides: { ratePerMinute: 10_000_000 },
});
const load = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");
console.log(`${backend}, plan ${plan}, ${calls} calls per column, load at start ${load()}`);

try {
  const health = healthCheckCall(address);
  const floor: number[] = [];
  for (let i = 0; i < 20 + calls; i++) {
    const t = now();
    await health.call();
    if (i >= 20) floor.push(now() - t);
  }
  health.close();
  console.log(`floor: Health/Check end to end, median ${median(floor).toFixed(3)} ms`);

  for (const method of ["vector", "semantic"] as Method[]) {
    const g = grpcCall(address, key, method);
    const rows = new Map<string, [number[], number[]]>();
    const add = (name: string, v: number): void => {
      const row = rows.get(name) ?? [[], []];
      row[identity ? 1 : 0].push(v);
      rows.set(name, row);
    };
    for (let i = 0; i < 20; i++) await g.call(PROTOCOL_QUERY);
    for (let i = 0; i < 2 * calls; i++) {
      identity = i % 2 === 1;
      marks = {};
      mark("t0");
      await g.call(PROTOCOL_QUERY);
      mark("t1");
      const handler = span("handler:start", "handler:end");
      const engine = span("engine:start", "engine:end");
      add("end to end (client)", span("t0", "t1"));
      add("outside the handler", span("t0", "t1") - handler);
      add("engine call", engine);
      add("handler minus engine (validation, paging, snippets, summary, message)", handler - engine);
      for (const [label, from, to] of STAGES) add(label, span(from, to));
    }
    g.close();
    identity = false;
    // The response's compression alone, as Connect runs it (zlib on the thread pool) and as the
    // client undoes it; and the page's snippets as served against the whole-post definition.
    const bytes = toBinary(
      method === "vector" ? VectorSearchResponseSchema : SemanticSearchResponseSchema,
      lastResult.get("handler") as never,
    );
    const zipped = await gzip(bytes);
    const contents = (lastResult.get("engine") as { post: { content: string } }[]).map((h) => h.post.content);
    for (let i = 0; i < 100; i++) {
      let t = now();
      await gzip(bytes);
      add("gzip of the response alone", now() - t);
      t = now();
      await gunzip(zipped);
      add("gunzip of the response alone", now() - t);
      t = now();
      for (const c of contents) shorten(c);
      add(`snippets of the page's ${contents.length} posts (one-pass fold)`, now() - t);
      t = now();
      for (const c of contents) shortenPlain(c);
      add(`snippets of the page's ${contents.length} posts (whole-post fold)`, now() - t);
    }
    const chars = contents.reduce((a, c) => a + c.length, 0);
    console.log(
      `\n${method}: response ${bytes.length} bytes (gzip ${zipped.length}); page posts ${chars} chars; load ${load()}`,
    );
    console.log(`  ${"median ms".padEnd(74)} ${"gzip".padStart(8)} ${"identity".padStart(8)}`);
    const cell = (xs: number[]): string => {
      const finite = xs.filter(Number.isFinite);
      return (finite.length ? median(finite).toFixed(3) : "-").padStart(8);
    };
    for (const [name, cols] of rows) console.log(`  ${name.padEnd(74)} ${cell(cols[0])} ${cell(cols[1])}`);
  }
} finally {
  await app.close();
  await usage.close();
  await index.close();
  await embedder.close();
  await limits.close();
  await accounts.close();
  await weaviate?.stop();
}
