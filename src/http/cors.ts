/**
 * CORS, off by default: browsers on other origins get no access unless CORS_ORIGINS lists them.
 * Listed origins may call the REST API with an Authorization header (preflight answered here,
 * before routing) and read the rate-limit headers. Connect and gRPC-Web browser clients use the
 * same rules.
 */
import type { FastifyInstance } from "fastify";

const ALLOW_HEADERS =
  "authorization, content-type, x-request-id, connect-protocol-version, connect-timeout-ms, x-grpc-web, x-user-agent, grpc-timeout";
const EXPOSE_HEADERS = [
  "x-request-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-quota-limit",
  "x-quota-remaining",
  "x-quota-reset",
  "ratelimit",
  "ratelimit-policy",
  "retry-after",
  "www-authenticate",
  "grpc-status",
  "grpc-message",
  "grpc-status-details-bin",
].join(", ");

/** Installs the CORS hook for `origins` (exact matches, or "*" for any); no-op when empty. */
export function installCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes("*");
  const allowed = new Set(origins);
  app.addHook("onRequest", async (req, reply) => {
    const origin = req.headers.origin;
    if (origin === undefined || !(any || allowed.has(origin))) return;
    reply.header("access-control-allow-origin", any ? "*" : origin);
    reply.header("vary", "Origin");
    reply.header("access-control-expose-headers", EXPOSE_HEADERS);
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      reply.header("access-control-allow-methods", "GET, POST, OPTIONS");
      reply.header("access-control-allow-headers", ALLOW_HEADERS);
      reply.header("access-control-max-age", "600");
      await reply.code(204).send();
    }
  });
}
