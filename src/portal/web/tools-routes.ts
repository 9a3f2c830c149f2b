/** The explorer and the admin page. The admin check is the service's (listAccounts throws forbidden). */
import type { FastifyInstance } from "fastify";
import { explorerOperations } from "./explorer-operations.js";
import type { PageContext } from "./page-context.js";
import { requireSession, sendPage, viewerOf } from "./page-context.js";
import { adminPage } from "./pages/admin-page.js";
import { explorerPage } from "./pages/explorer-page.js";

/** Registers /explorer and /admin. */
export function toolsRoutes(app: FastifyInstance, ctx: PageContext): void {
  const operations = explorerOperations();
  app.get("/explorer", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    return sendPage(reply, 200, explorerPage(viewerOf(session), operations));
  });

  app.get("/admin", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    const accounts = await ctx.service.listAccounts(session.account.id);
    return sendPage(reply, 200, adminPage(viewerOf(session), accounts, ctx.service.plans()));
  });
}
