/**
 * The developer portal as one encapsulated Fastify plugin, mounted at /portal by buildServer: its
 * form parser, security headers, error pages and 404 page stay inside it and do not touch the
 * API routes. Server-rendered HTML; the only scripts are our own files under /portal/assets.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { PortalService } from "../portal-service.js";
import { PortalError } from "../portal-service.js";
import { accountRoutes } from "./account-routes.js";
import { loadAssets } from "./assets.js";
import { authRoutes } from "./auth-routes.js";
import { billingRoutes } from "./billing-routes.js";
import { cookiePolicy } from "./cookies.js";
import { FlashStore } from "./flash-store.js";
import { keyRoutes } from "./key-routes.js";
import type { MonitorPages } from "./monitor-routes.js";
import { monitorRoutes } from "./monitor-routes.js";
import type { PageContext } from "./page-context.js";
import { FAILURE_STATUS, FAILURE_TITLE, findSession, PageError, sendPage, viewerOf } from "./page-context.js";
import { errorPage } from "./pages/error-page.js";
import { setSecurityHeaders } from "./security-headers.js";
import { toolsRoutes } from "./tools-routes.js";

/** Options of the portal plugin. */
export interface PortalPluginOptions {
  service: PortalService;
  /** The port speaks TLS: adds HSTS and expects https Origins. */
  tls: boolean;
  /** Secure (and __Host-) cookies; see cookies.ts. */
  cookieSecure: boolean;
  /** Largest form body, bytes. */
  maxBodyBytes: number;
  /** The monitors domain; when present the portal serves /portal/monitors. */
  monitors?: PortalMonitors;
}

/** What the monitors pages manage: the monitors domain and the plans that limit it. */
export type PortalMonitors = MonitorPages;

function parseForm(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  // The first value of a repeated field wins; no form of ours repeats one.
  for (const [k, v] of new URLSearchParams(body)) if (!(k in out)) out[k] = v;
  return out;
}

async function renderError(
  ctx: PageContext,
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
): Promise<FastifyReply> {
  const found = await findSession(ctx, req).catch(() => undefined);
  return sendPage(
    reply,
    status,
    errorPage(status, title, message, found === undefined ? undefined : viewerOf(found.session)),
  );
}

/** The plugin; register with `{ prefix: "/portal" }`. */
export async function portalPlugin(app: FastifyInstance, opts: PortalPluginOptions): Promise<void> {
  const ctx: PageContext = {
    service: opts.service,
    cookies: cookiePolicy(opts.cookieSecure),
    scheme: opts.tls ? "https" : "http",
    flash: new FlashStore(),
  };
  const assets = loadAssets();

  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: opts.maxBodyBytes },
    (_req, body, done) => {
      done(null, parseForm(body as string));
    },
  );
  app.addHook("onRequest", async (_req, reply) => setSecurityHeaders(reply, opts.tls));

  app.get<{ Params: { file: string } }>("/assets/:file", async (req, reply) => {
    const asset = assets.get(req.params.file);
    if (asset === undefined) return renderError(ctx, req, reply, 404, "Not found", "There is no such file.");
    return reply.header("cache-control", "public, max-age=300").type(asset.contentType).send(asset.body);
  });

  authRoutes(app, ctx);
  accountRoutes(app, ctx);
  keyRoutes(app, ctx);
  toolsRoutes(app, ctx);
  if (opts.monitors !== undefined) monitorRoutes(app, ctx, opts.monitors);
  // Not awaited: awaiting would bind the routes above before the error handler below is set.
  void app.register(billingRoutes, { service: opts.service, maxBodyBytes: opts.maxBodyBytes });

  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    if (err instanceof PageError) {
      if (err.retryAfterSeconds !== undefined) reply.header("retry-after", String(err.retryAfterSeconds));
      return renderError(ctx, req, reply, err.status, err.title, err.message);
    }
    if (err instanceof PortalError) {
      const f = err.failure;
      if (f.kind === "rate_limited") reply.header("retry-after", String(Math.max(1, Math.ceil(f.retryAfterSeconds))));
      return renderError(ctx, req, reply, FAILURE_STATUS[f.kind], FAILURE_TITLE[f.kind], f.message);
    }
    // Fastify's own 4xx (body too large, unsupported media type): keep the status and its message.
    if (typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
      return renderError(ctx, req, reply, err.statusCode, "Bad request", err.message);
    }
    req.log.error({ err }, "portal page failed");
    return renderError(
      ctx,
      req,
      reply,
      500,
      "Something went wrong",
      "The page could not be shown. Try again in a moment.",
    );
  });
  app.setNotFoundHandler(async (req, reply) =>
    renderError(ctx, req, reply, 404, "Not found", `There is no portal page at ${req.url.split("?")[0]}.`),
  );
}
