/**
 * The monitors pages and their forms, post/redirect/get like the keys page. Every rule is
 * MonitorsCore's (validation, the plan's active-monitor limit, ownership by account): the pages
 * only turn its AppErrors into messages next to the form field they name. A new or rotated
 * signing secret rides across the redirect in a session-bound, single-use flash.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError } from "../../errors/app-error.js";
import type { PlanCatalog } from "../../limits/plan-catalog.js";
import { emptyFilter } from "../../monitors/monitor-filters.js";
import { monitorOwner } from "../../monitors/monitor-owner.js";
import type { MonitorKind } from "../../monitors/monitor-spec.js";
import { DEFAULT_MIN_RELEVANCE, DEFAULT_MIN_SCORE } from "../../monitors/monitor-spec.js";
import type { MonitorsCore, Owner } from "../../monitors/monitors-core.js";
import { FlashStore } from "./flash-store.js";
import { PORTAL_PREFIX } from "./layout.js";
import type { PageContext, SignedIn } from "./page-context.js";
import { formValue, PageError, requireSession, sendPage, verifyPost, viewerOf } from "./page-context.js";
import { monitorPage } from "./pages/monitor-page.js";
import type { MonitorForm } from "./pages/monitors-page.js";
import { monitorsPage } from "./pages/monitors-page.js";
import { noStore } from "./security-headers.js";

/** How many monitors and delivery attempts a page lists. */
const LIST_LIMIT = 100;
const ATTEMPTS_LIMIT = 25;

/** Outcomes a redirect can announce (`?done=`); none carries a secret. */
const NOTICES: Readonly<Record<string, string>> = {
  created: "The monitor was created. Its signing secret was shown once, on the page after you created it.",
  paused: "The monitor is paused: matching posts are not recorded or sent until you resume it.",
  resumed: "The monitor is active again: posts ingested from now on are matched and sent.",
  rotated: "The secret was rotated. The new one was shown once, on the page after you rotated it.",
};

/** A signing secret on its way from a POST to the GET that shows it. */
interface FreshSecret {
  monitorId: string;
  secret: string;
}

/** What the monitors pages need besides the portal service. */
export interface MonitorPages {
  core: MonitorsCore;
  catalog: PlanCatalog;
}

/** The create form's field a MonitorsCore error names ("monitor.channels[0].url" is the URL). */
function formField(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const name = field.replace(/^monitor\./, "");
  if (/^channels(\[0\])?(\.url)?$/.test(name)) return "url";
  return ["name", "kind", "query"].includes(name) ? name : undefined;
}

function redirect(reply: FastifyReply, path: string, done: string): FastifyReply {
  noStore(reply);
  return reply.redirect(`${PORTAL_PREFIX}${path}?done=${done}`, 303);
}

/** A MonitorsCore refusal as the error page shows it (not found, plan limit). */
function pageErrorOf(err: unknown): unknown {
  if (!(err instanceof AppError)) return err;
  if (err.kind === "NOT_FOUND")
    return new PageError(
      404,
      "Not found",
      "You have no monitor with that id. It may belong to another account, or the link is wrong.",
    );
  if (err.kind === "PERMISSION_DENIED") return new PageError(403, "Plan limit reached", err.message);
  if (err.kind === "INVALID_ARGUMENT" || err.kind === "MISSING_FIELD")
    return new PageError(400, "Invalid request", err.message);
  return err;
}

/** Registers /monitors, its create form, the page of one monitor and its actions. */
export function monitorRoutes(app: FastifyInstance, ctx: PageContext, pages: MonitorPages): void {
  const flash = new FlashStore<FreshSecret>();
  const ownerOf = (s: SignedIn): Owner => monitorOwner(pages.catalog, s.account.id, s.account.plan);

  app.get<{ Querystring: { done?: string; query?: string; kind?: string; name?: string } }>(
    "/monitors",
    async (req, reply) => {
      const session = await requireSession(ctx, req, reply);
      if (session === undefined) return reply;
      const monitors = await pages.core.list(ownerOf(session), undefined, LIST_LIMIT);
      const q = req.query;
      // "Create from a search": the explorer links here with its query (and kind) filled in.
      const form: MonitorForm = { name: q.name ?? "", kind: q.kind ?? "search", query: q.query ?? "", url: "" };
      const notice = q.done !== undefined ? NOTICES[q.done] : undefined;
      return sendPage(
        reply,
        200,
        monitorsPage(viewerOf(session), monitors, { form, ...(notice !== undefined ? { notice } : {}) }),
      );
    },
  );

  app.post("/monitors", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    const form: MonitorForm = {
      name: formValue(req, "name"),
      kind: formValue(req, "kind"),
      query: formValue(req, "query"),
      url: formValue(req, "url").trim(),
    };
    const owner = ownerOf(session);
    try {
      const created = await pages.core.create(owner, {
        name: form.name,
        kind: form.kind as MonitorKind,
        query: form.query,
        minRelevance: DEFAULT_MIN_RELEVANCE,
        minScore: DEFAULT_MIN_SCORE,
        filter: emptyFilter(),
        channels: [{ type: "webhook", url: form.url, email: "", emailMode: "instant" }],
        paused: false,
      });
      flash.put(session.token, { monitorId: created.monitor.id, secret: created.secret });
      return redirect(reply, `/monitors/${created.monitor.id}`, "created");
    } catch (err) {
      // A refused form comes back filled in, its message next to the field it names.
      if (!(err instanceof AppError) || !["INVALID_ARGUMENT", "MISSING_FIELD", "PERMISSION_DENIED"].includes(err.kind))
        throw err;
      const field = formField(err.metadata.field);
      const monitors = await pages.core.list(owner, undefined, LIST_LIMIT);
      const state = field !== undefined ? { form, errors: { [field]: err.message } } : { form, alert: err.message };
      return sendPage(
        reply,
        err.kind === "PERMISSION_DENIED" ? 403 : 400,
        monitorsPage(viewerOf(session), monitors, state),
      );
    }
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>("/monitors/:id", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    const owner = ownerOf(session);
    try {
      const monitor = await pages.core.get(owner, req.params.id);
      const attempts = await pages.core.attempts(owner, monitor.id, "", undefined, ATTEMPTS_LIMIT);
      const fresh = flash.take(session.token);
      // A secret meant for another monitor's page is dropped, not shown here.
      const secret = fresh?.monitorId === monitor.id ? fresh.secret : undefined;
      // With the secret on screen, the "shown once" notice would only confuse.
      const notice = secret === undefined && req.query.done !== undefined ? NOTICES[req.query.done] : undefined;
      return sendPage(
        reply,
        200,
        monitorPage(viewerOf(session), monitor, attempts, {
          ...(secret !== undefined ? { freshSecret: secret } : {}),
          ...(notice !== undefined ? { notice } : {}),
        }),
      );
    } catch (err) {
      throw pageErrorOf(err);
    }
  });

  for (const action of ["pause", "resume"] as const) {
    app.post<{ Params: { id: string } }>(`/monitors/:id/${action}`, async (req, reply) => {
      const session = await requireSession(ctx, req, reply);
      if (session === undefined) return reply;
      verifyPost(ctx, req, session);
      try {
        const paused = action === "pause";
        const m = await pages.core.update(ownerOf(session), req.params.id, (current) => ({ ...current, paused }));
        return redirect(reply, `/monitors/${m.id}`, paused ? "paused" : "resumed");
      } catch (err) {
        throw pageErrorOf(err);
      }
    });
  }

  app.post<{ Params: { id: string } }>("/monitors/:id/rotate-secret", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    try {
      const rotated = await pages.core.rotateSecret(ownerOf(session), req.params.id);
      flash.put(session.token, { monitorId: req.params.id, secret: rotated.secret });
      return redirect(reply, `/monitors/${req.params.id}`, "rotated");
    } catch (err) {
      throw pageErrorOf(err);
    }
  });
}
