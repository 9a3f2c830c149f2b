/**
 * The signed-in account's pages: dashboard (usage) and plans (change at once); the API keys are
 * in key-routes.ts. Every POST is verified (same origin + the session's CSRF token) before the
 * service is asked anything.
 */
import type { FastifyInstance } from "fastify";
import { PORTAL_PREFIX } from "./layout.js";
import { formValue, requireSession, sendPage, verifyPost, viewerOf } from "./page-context.js";
import type { PageContext } from "./page-context.js";
import { dashboardPage } from "./pages/dashboard-page.js";
import { plansPage } from "./pages/plans-page.js";
import { noStore } from "./security-headers.js";

/** Days of history the dashboard chart shows. */
export const DASHBOARD_DAYS = 30;

/** Registers dashboard and plans. */
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
}
