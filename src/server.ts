/**
 * buildServer(deps): one Fastify app answering every protocol on one port — gRPC (HTTP/2),
 * Connect and gRPC-Web through @connectrpc/connect-fastify, and the REST /api/v1 gateway —
 * plus /healthz, /readyz and /metrics. It never listens and reads no environment: main.ts does.
 */
import { setMaxListeners } from "node:events";
import { readFileSync } from "node:fs";
import type http2 from "node:http2";
import type { Socket } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, Interceptor, ServiceImpl } from "@connectrpc/connect";
import { createRouterTransport } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import type { FastifyInstance } from "fastify";
import Fastify, { LogController } from "fastify";
import type { Logger } from "pino";
import { InsightsService } from "../gen/threadsight/v1/insights_pb.js";
import { LeadService } from "../gen/threadsight/v1/leads_pb.js";
import { MonitorService } from "../gen/threadsight/v1/monitors_pb.js";
import { PostService } from "../gen/threadsight/v1/posts_pb.js";
import { SearchService } from "../gen/threadsight/v1/search_pb.js";
import { TrendService } from "../gen/threadsight/v1/trends_pb.js";
import { UsageService } from "../gen/threadsight/v1/usage_pb.js";
import { PEER_HEADER } from "./auth/context.js";
import type { Config, TrustProxy } from "./config.js";
import { AppError } from "./errors/app-error.js";
import { errorResponse } from "./gateway/envelope.js";
import { restGateway } from "./gateway/gateway-plugin.js";
import { aliasPath, restRoutes } from "./gateway/http-rules.js";
import { COMPRESS_MIN_BYTES } from "./gateway/response-encoding.js";
import { closest } from "./gateway/suggest.js";
import { installCors } from "./http/cors.js";
import type { Authenticator, AuthFailureGuard } from "./interceptors/auth.js";
import { authInterceptor } from "./interceptors/auth.js";
import { deadlineInterceptor } from "./interceptors/deadline.js";
import { DEFERRED_ERROR_HEADER, deferredErrorInterceptor } from "./interceptors/deferred-error.js";
import { observeInterceptor } from "./interceptors/observe.js";
import { PROTOCOL_HEADER } from "./interceptors/protocol.js";
import type { RpcMetrics } from "./observability/metrics.js";
import type { MetricsAccess } from "./observability/metrics-access.js";
import { metricsAuthorized, metricsOnPublicPort } from "./observability/metrics-access.js";
import { REQUEST_ID_HEADER, requestIdFrom } from "./observability/request-id.js";
import { openApiText } from "./openapi/openapi-file.js";
import { registerOpenApiRoute } from "./openapi/openapi-route.js";
import type { PortalService } from "./portal/portal-service.js";
import { registerFavicon } from "./portal/web/favicon.js";
import type { PortalMonitors } from "./portal/web/portal-plugin.js";
import { portalPlugin } from "./portal/web/portal-plugin.js";
import type { ConnectionLimits } from "./transport/connection-limits.js";
import {
  DEFAULT_CONNECTION_LIMITS,
  deadlineCheckIntervalMs,
  guardHttp2,
  perAddressGate,
} from "./transport/connection-limits.js";
import { reclassifyDecodeErrors } from "./transport/decode-errors.js";
import { compressionDeflate } from "./transport/deflate.js";
import { endUnreadBody } from "./transport/early-answer.js";
import { encodeGrpcMessage } from "./transport/grpc-message.js";
import type { OnePortServer } from "./transport/one-port.js";
import { createOnePortServer } from "./transport/one-port.js";

/** The public API services, in the order they are documented. */
export const API_SERVICES: readonly DescService[] = [
  SearchService,
  TrendService,
  LeadService,
  UsageService,
  MonitorService,
  PostService,
  InsightsService,
];

/** Implementations of the public services; a missing one answers `unimplemented`. */
export interface Implementations {
  search?: Partial<ServiceImpl<typeof SearchService>>;
  trends?: Partial<ServiceImpl<typeof TrendService>>;
  leads?: Partial<ServiceImpl<typeof LeadService>>;
  usage?: Partial<ServiceImpl<typeof UsageService>>;
  monitors?: Partial<ServiceImpl<typeof MonitorService>>;
  posts?: Partial<ServiceImpl<typeof PostService>>;
  insights?: Partial<ServiceImpl<typeof InsightsService>>;
}

/** After SHUTDOWN_TIMEOUT_MS, how long calls aborted by the shutdown get to send their answer, ms. */
export const ABORTED_ANSWER_GRACE_MS = 1_000;

/** Everything buildServer needs; main.ts wires real ones, tests may wire their own. */
export interface ServerDeps {
  config: Pick<Config, "maxBodyBytes" | "requestTimeoutMs" | "shutdownTimeoutMs" | "tlsCertFile" | "tlsKeyFile"> & {
    /** Who may read /metrics on this port; not served here when absent (src/observability/metrics-access.ts). */
    metricsAccess?: Readonly<MetricsAccess>;
    /** Proxies whose X-Forwarded-For gives the client address (Fastify's trustProxy); false when absent. */
    trustProxy?: TrustProxy;
    /** Connection deadlines and caps; DEFAULT_CONNECTION_LIMITS when absent. */
    connectionLimits?: Readonly<ConnectionLimits>;
    corsOrigins?: readonly string[];
    /** Secure (__Host-) portal cookies; default true. */
    portalCookieSecure?: boolean;
  };
  logger: Logger;
  metrics: RpcMetrics;
  authenticator: Authenticator;
  authGuard?: AuthFailureGuard;
  /** Interceptors that run after authentication (rate limits and quotas). */
  afterAuth?: readonly Interceptor[];
  implementations: Implementations;
  /** Registers gRPC ecosystem services (reflection, health) on the HTTP/2 router. */
  ecosystem?: (router: ConnectRouter) => void;
  /** Readiness checks by name, for /readyz. */
  readiness?: () => Promise<Record<string, boolean>>;
  /** The developer portal's domain; when present the portal pages are served under /portal. */
  portal?: PortalService;
  /** The monitors domain the portal's monitors page manages, with the plans that limit it. */
  portalMonitors?: PortalMonitors;
}

function apiRoutes(impl: Implementations): (router: ConnectRouter) => void {
  return (router) => {
    router.service(SearchService, impl.search ?? {});
    router.service(TrendService, impl.trends ?? {});
    router.service(LeadService, impl.leads ?? {});
    router.service(UsageService, impl.usage ?? {});
    router.service(MonitorService, impl.monitors ?? {});
    router.service(PostService, impl.posts ?? {});
    router.service(InsightsService, impl.insights ?? {});
  };
}

/** Every REST path the gateway serves, aliases included. */
const REST_PATHS: readonly string[] = restRoutes(API_SERVICES).flatMap((r) =>
  [r.path, aliasPath(r.path)].filter((p): p is string => p !== undefined),
);

/**
 * "; did you mean ..." for a path a few characters off one we serve: a trailing slash, a typo, a
 * capital letter ("/api/v1/search/semantic/" was a bare 404).
 */
function routeHint(path: string): string {
  const near = closest(path.toLowerCase().replace(/\/+$/, ""), REST_PATHS, 3);
  return near === undefined ? "" : `; did you mean ${near}?`;
}

/**
 * The same limits on the TLS server, which Node routes itself (ALPN): the per-address cap at
 * accept, HTTP/2 sessions and streams, and the HTTP/1.1 deadline fields its `allowHTTP1`
 * connections read.
 */
function guardTlsServer(server: http2.Http2SecureServer, limits: Readonly<ConnectionLimits>): void {
  const admit = perAddressGate(limits.maxConnectionsPerAddress);
  server.prependListener("connection", (socket: Socket) => {
    if (!admit(socket)) socket.destroy();
  });
  // Node reads these fields (not constructor options) for allowHTTP1 connections, and the check
  // interval when the server starts listening, which is still to come.
  Object.assign(server, {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestBodyTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: deadlineCheckIntervalMs(limits),
  });
  // The TLS handshake and SETTINGS together must fit the first-bytes budget, counted from the
  // session's start (the handshake has its own Node deadline before that).
  guardHttp2(server, limits, () => Date.now() + limits.firstBytesTimeoutMs);
}

/** TRUST_PROXY as Fastify's typings take it: a hop count becomes the hop predicate Fastify builds for one. */
function trustProxyOption(
  setting: TrustProxy | undefined,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (setting === undefined) return false;
  if (typeof setting === "number") return (_address, hop) => hop < setting;
  return typeof setting === "boolean" ? setting : [...setting];
}

/** Builds the app. Call `listen` on the result (main.ts) or use it with real listeners in tests. */
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const interceptors: Interceptor[] = [
    observeInterceptor(deps.logger, deps.metrics),
    deadlineInterceptor(config.requestTimeoutMs),
    authInterceptor(deps.authenticator, deps.authGuard),
    ...(deps.afterAuth ?? []),
    deferredErrorInterceptor(),
  ];
  const routes = apiRoutes(deps.implementations);
  let onePort: OnePortServer | undefined;
  const tls = config.tlsCertFile !== undefined && config.tlsKeyFile !== undefined;
  const limits = config.connectionLimits ?? DEFAULT_CONNECTION_LIMITS;
  const options = {
    loggerInstance: deps.logger,
    // One log line per request comes from our onResponse hook; Fastify's two would double it.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.maxBodyBytes,
    return503OnClosing: true,
    // req.ip (rate limits, auth failures, portal sign-in, every protocol) honours
    // X-Forwarded-For only from the proxies configured here.
    trustProxy: trustProxyOption(config.trustProxy),
    // preClose may wait SHUTDOWN_TIMEOUT_MS plus the aborted-answer grace; avvio's default 10 s
    // hook timeout would fail close() first and skip closing the stores.
    pluginTimeout: Math.max(10_000, config.shutdownTimeoutMs + ABORTED_ANSWER_GRACE_MS + 5_000),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) =>
      requestIdFrom(req.headers[REQUEST_ID_HEADER]),
  };
  const app: FastifyInstance = tls
    ? (Fastify({
        ...options,
        http2: true,
        https: {
          allowHTTP1: true,
          settings: { maxConcurrentStreams: limits.http2MaxConcurrentStreams },
          cert: readFileSync(config.tlsCertFile!),
          key: readFileSync(config.tlsKeyFile!),
        },
      }) as unknown as FastifyInstance)
    : (Fastify({
        ...options,
        http2: true,
        serverFactory: (handler) => {
          onePort = createOnePortServer(handler as Parameters<typeof createOnePortServer>[0], limits);
          return onePort;
        },
      }) as unknown as FastifyInstance);
  if (tls) guardTlsServer(app.server as unknown as http2.Http2SecureServer, limits);

  // Internal headers are ours to set: drop whatever a client sent under those names.
  let inflight = 0;
  app.addHook("onRequest", async (req, reply) => {
    // Counted until the response's "close", which fires however the request ends: answered,
    // aborted by the client mid-body, or failed. onResponse never runs for an aborted one.
    inflight++;
    let counted = true;
    reply.raw.once("close", () => {
      if (counted) inflight--;
      counted = false;
    });
    // An answer sent before the body was read (too large, refused) must not stall the client.
    endUnreadBody(req.raw, reply.raw);
    const headers = req.raw.headers as Record<string, string | string[] | undefined>;
    delete headers[PEER_HEADER];
    delete headers[PROTOCOL_HEADER];
    delete headers[DEFERRED_ERROR_HEADER];
    headers[PEER_HEADER] = req.ip;
    headers[REQUEST_ID_HEADER] = String(req.id);
    reply.header(REQUEST_ID_HEADER, String(req.id));
    reply.header("x-content-type-options", "nosniff");
  });
  app.addHook("onResponse", async (req, reply) => {
    // The path only: a client that puts its key in the query string (?key=...) must not have
    // it written to the log.
    req.log.info(
      { method: req.method, url: req.url.split("?")[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      "request",
    );
  });
  installCors(app, config.corsOrigins ?? []);

  // SIGTERM: Fastify refuses new requests with 503 while closing; wait for in-flight ones
  // (bounded), then drop the HTTP/1.1 keep-alive sockets.
  // The listening socket counts the HTTP/1.1 connections too (they were accepted by it), so
  // close() would otherwise wait for their keep-alive timeout.
  // Calls still running at the deadline are aborted through their handler signal. (Connect's
  // own shutdownTimeoutMs option leaves a timer behind that holds the process open after exit.)
  const shutdown = new AbortController();
  // Every in-flight call links its handler signal to this one (and unlinks when it ends), so
  // more than ten concurrent calls are normal, not a listener leak.
  setMaxListeners(0, shutdown.signal);
  app.addHook("preClose", async () => {
    const deadline = Date.now() + config.shutdownTimeoutMs;
    while (inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (inflight > 0) {
      shutdown.abort(new AppError("UNAVAILABLE", "the server is shutting down; retry on another instance"));
      // Let the aborted calls write their 503 before their sockets are destroyed (bounded).
      const answered = Date.now() + ABORTED_ANSWER_GRACE_MS;
      while (inflight > 0 && Date.now() < answered) await new Promise((r) => setTimeout(r, 20));
    }
    onePort?.destroyHttp1Connections();
  });

  await app.register(fastifyConnectPlugin, {
    routes: (router) => {
      routes(router);
      deps.ecosystem?.(router);
      reclassifyDecodeErrors(router, config.maxBodyBytes);
    },
    interceptors,
    readMaxBytes: config.maxBodyBytes,
    // Connect gzips every answer from 1 KiB when the client offers it (grpc-js always does).
    // A default search page is ~6.6 KB: compressing it costs ~1.5 ms of CPU on both ends and
    // saves no round trip (it fits TCP's initial window either way); big pages still shrink.
    compressMinBytes: COMPRESS_MIN_BYTES,
    // Connect's two plus the deflate grpc-js also offers (deflate.ts).
    acceptCompression: [compressionGzip, compressionBrotli, compressionDeflate],
    shutdownSignal: shutdown.signal,
  });

  const transport = createRouterTransport(routes, {
    router: { interceptors, readMaxBytes: config.maxBodyBytes, shutdownSignal: shutdown.signal },
  });
  await app.register(restGateway, { services: API_SERVICES, transport, maxBodyBytes: config.maxBodyBytes });

  registerOpenApiRoute(app, openApiText());
  if (deps.portal !== undefined) {
    await app.register(portalPlugin, {
      prefix: "/portal",
      service: deps.portal,
      tls,
      cookieSecure: config.portalCookieSecure ?? true,
      maxBodyBytes: config.maxBodyBytes,
      ...(deps.portalMonitors !== undefined ? { monitors: deps.portalMonitors } : {}),
    });
  }
  registerFavicon(app);
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const checks = (await deps.readiness?.()) ?? {};
    const ready = Object.values(checks).every(Boolean);
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "not_ready", checks });
  });
  const metricsToken = config.metricsAccess?.token;
  if (config.metricsAccess !== undefined && metricsOnPublicPort(config.metricsAccess)) {
    app.get("/metrics", async (req, reply) => {
      if (!metricsAuthorized(req.headers.authorization, metricsToken)) {
        const { status, body } = errorResponse(
          new AppError("UNAUTHENTICATED", "metrics need the header Authorization: Bearer <METRICS_TOKEN>"),
          String(req.id),
        );
        return reply.code(status).header("www-authenticate", 'Bearer realm="threadsight-metrics"').send(body);
      }
      const body = await deps.metrics.registry.metrics();
      return reply.type(deps.metrics.registry.contentType).send(body);
    });
  }
  app.setNotFoundHandler(async (req, reply) => {
    // gRPC and gRPC-Web clients read the status from grpc-status, not the HTTP status: an
    // unknown method is UNIMPLEMENTED.
    const contentType = String(req.headers["content-type"] ?? "");
    if (/^application\/grpc/.test(contentType)) {
      const status = "12";
      const message = encodeGrpcMessage(`unknown method ${req.url.split("?")[0]}`);
      reply.code(200).header("content-type", contentType);
      // Over HTTP/2 a status in the headers counts only on a HEADERS frame that ends the stream
      // (trailers-only), which Node's compatibility layer never sends; grpc-js then failed the
      // call as INTERNAL "Call ended without gRPC status". Trailers suit every gRPC client;
      // gRPC-Web has none, so there the status stays in the headers.
      if (req.raw.httpVersionMajor === 2 && !contentType.startsWith("application/grpc-web")) {
        return reply
          .trailer("grpc-status", async () => status)
          .trailer("grpc-message", async () => message)
          .send();
      }
      return reply.header("grpc-status", status).header("grpc-message", message).send();
    }
    const path = req.url.split("?")[0] ?? "";
    const { status, body } = errorResponse(
      new AppError("NOT_FOUND", `no route for ${req.method} ${path}${routeHint(path)}`),
      String(req.id),
    );
    return reply.code(status).send(body);
  });
  return app;
}
