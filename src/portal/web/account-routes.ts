/**
 * The signed-in account's pages: dashboard (usage), plans (change at once) and API keys
 * (create, rotate, revoke). Every POST is verified (same origin + the session's CSRF token)
 * before the service is asked anything.
 */
import type { FastifyInstance } from "fastify";
import { PortalError } from "../portal-service.js";
import { PORTAL_PREFIX } from "./layout.js";
import { FAILURE_STATUS, formValue, requireSession, sendPage, verifyPost, viewerOf } from "./page-context.js";
import type { PageContext } from "./page-context.js";
import { dashboardPage } from "./pages/dashboard-page.js";
import { keysPage } from "./pages/keys-page.js";
import { plansPage } from "./pages/plans-page.js";
import { noStore } from "./security-headers.js";

/** Days of history the dashboard chart shows. */
export const DASHBOARD_DAYS = 30;

const KEY_NOTICES: Readonly<Record<string, string>> = {
  revoked: "The key was revoked; calls with it are refused from now on.",
};

/** Registers dashboard, plans and keys. */
export function accountRoutes(app: FastifyInstance, ctx: PageContext): void {
  app.get("/dashboard", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    const usage = await ctx.service.usage(session.account.id, DASHBOARD_DAYS);
    const plan = ctx.service.plans().find((p) => p.id === usage.plan);
    return sendPage(reply, 200, dashboardPage(viewerOf(session), usage, plan));
  });

  app.get<{ Querystring: { welcome?: string; changed?: string } }>("/plans", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    const changed = ctx.service.plans().find((p) => p.id === req.query.changed);
    const notice =
      changed !== undefined
        ? `You are now on the ${changed.name} plan. It applies to all your active keys.`
        : req.query.welcome !== undefined
          ? "Welcome! Choose a plan, then create an API key."
          : undefined;
    return sendPage(reply, 200, plansPage(viewerOf(session), ctx.service.plans(), notice));
  });

  app.post("/plans", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    const account = await ctx.service.changePlan(session.account.id, formValue(req, "plan"));
    noStore(reply);
    return reply.redirect(`${PORTAL_PREFIX}/plans?changed=${encodeURIComponent(account.plan)}`, 303);
  });

  app.get<{ Querystring: { done?: string } }>("/keys", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    const keys = await ctx.service.listKeys(session.account.id);
    const notice = req.query.done !== undefined ? KEY_NOTICES[req.query.done] : undefined;
    return sendPage(reply, 200, keysPage(viewerOf(session), keys, notice !== undefined ? { notice } : {}));
  });

  app.post("/keys", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    const name = formValue(req, "name");
    try {
      const created = await ctx.service.createKey(session.account.id, name);
      const keys = await ctx.service.listKeys(session.account.id);
      return sendPage(reply, 201, keysPage(viewerOf(session), keys, { fresh: { secret: created.key, info: created.info } }));
    } catch (err) {
      if (!(err instanceof PortalError) || err.failure.kind !== "invalid") throw err;
      const keys = await ctx.service.listKeys(session.account.id);
      return sendPage(reply, FAILURE_STATUS.invalid, keysPage(viewerOf(session), keys, { name, nameError: err.failure.message }));
    }
  });

  app.post<{ Params: { id: string } }>("/keys/:id/rotate", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    const rotated = await ctx.service.rotateKey(session.account.id, req.params.id);
    const keys = await ctx.service.listKeys(session.account.id);
    return sendPage(reply, 201, keysPage(viewerOf(session), keys, { fresh: { secret: rotated.key, info: rotated.info, replaced: rotated.oldKey } }));
  });

  app.post<{ Params: { id: string } }>("/keys/:id/revoke", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    await ctx.service.revokeKey(session.account.id, req.params.id);
    noStore(reply);
    return reply.redirect(`${PORTAL_PREFIX}/keys?done=revoked`, 303);
  });
}
