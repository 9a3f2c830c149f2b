/**
 * The signed-in account's pages: dashboard (usage) and plans (through the billing provider); the
 * API keys are in key-routes.ts. Every POST is verified (same origin + the session's CSRF token)
 * before the service is asked anything.
 */
import type { FastifyInstance } from "fastify";
import { PORTAL_PREFIX } from "./layout.js";
import type { PageContext } from "./page-context.js";
import { formValue, requireSession, sendPage, verifyPost, viewerOf } from "./page-context.js";
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

  app.get<{ Querystring: { welcome?: string; changed?: string; pending?: string; checkout?: string } }>(
    "/plans",
    async (req, reply) => {
      const session = await requireSession(ctx, req, reply);
      if (session === undefined) return reply;
      const find = (id: string | undefined) => ctx.service.plans().find((p) => p.id === id);
      const changed = find(req.query.changed);
      const pending = find(req.query.pending);
      const notice =
        changed !== undefined
          ? `You are now on the ${changed.name} plan. It applies to all your active keys.`
          : pending !== undefined
            ? `Your move to the ${pending.name} plan is arranged with the payment provider; it applies when the provider confirms it.`
            : req.query.checkout === "done"
              ? "Thank you. Your plan changes as soon as the payment provider confirms the payment."
              : req.query.checkout === "cancelled"
                ? "Checkout was cancelled; your plan is unchanged."
                : req.query.welcome !== undefined
                  ? "Welcome! Choose a plan, then create an API key."
                  : undefined;
      return sendPage(
        reply,
        200,
        plansPage(viewerOf(session), ctx.service.plans(), ctx.service.billingProvider(), notice),
      );
    },
  );

  app.post("/plans", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    const plan = formValue(req, "plan");
    const back = `${ctx.scheme}://${req.host}${PORTAL_PREFIX}/plans`;
    const { account, outcome } = await ctx.service.changePlan(session.account.id, plan, {
      success: `${back}?checkout=done`,
      cancel: `${back}?checkout=cancelled`,
    });
    noStore(reply);
    if (outcome.kind === "checkout") return reply.redirect(outcome.url, 303);
    if (outcome.kind === "scheduled")
      return reply.redirect(`${PORTAL_PREFIX}/plans?pending=${encodeURIComponent(plan)}`, 303);
    return reply.redirect(`${PORTAL_PREFIX}/plans?changed=${encodeURIComponent(account.plan)}`, 303);
  });
}
