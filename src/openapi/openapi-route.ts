/**
 * GET /api/v1/openapi.json (and its /v1 alias): the OpenAPI document, public and free. It is a
 * plain route outside the gateway, so no interceptor (auth, limits) sees it. The document only
 * changes with a deploy, so caches may keep it briefly and revalidate with its ETag.
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { aliasPath } from "../gateway/http-rules.js";

/** Canonical path of the document. */
export const OPENAPI_PATH = "/api/v1/openapi.json";

/** Cache lifetime, seconds: short, so a deploy is seen within minutes even without revalidation. */
const MAX_AGE_SECONDS = 300;

/** Registers the document routes on `app`, serving `text` as is. */
export function registerOpenApiRoute(app: FastifyInstance, text: string): void {
  const etag = `"${createHash("sha256").update(text).digest("base64url")}"`;
  for (const url of [OPENAPI_PATH, aliasPath(OPENAPI_PATH)!]) {
    app.get(url, async (req, reply) => {
      reply.header("cache-control", `public, max-age=${MAX_AGE_SECONDS}`).header("etag", etag);
      const match = req.headers["if-none-match"];
      if (match !== undefined && match.split(",").some((t) => t.trim() === etag || t.trim() === "*"))
        return reply.code(304).send();
      return reply.type("application/json; charset=utf-8").send(text);
    });
  }
}
