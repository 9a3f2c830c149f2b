/**
 * /favicon.ico at the site root, where browsers ask for it whatever page they show (portal,
 * JSON errors, the OpenAPI document), so no visit logs a 404 for it. The portal's pages also
 * link the SVG version from their head.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { ASSETS_DIR } from "./assets.js";

/** Registers GET /favicon.ico on `app` (outside any prefix). */
export function registerFavicon(app: FastifyInstance, dir = ASSETS_DIR): void {
  const icon = readFileSync(path.join(dir, "favicon.ico"));
  app.get("/favicon.ico", async (_req, reply) =>
    reply.header("cache-control", "public, max-age=86400").type("image/x-icon").send(icon),
  );
}
