/**
 * The API keys page and its forms, all post/redirect/get: every POST answers 303 to GET /keys,
 * so a reload repeats the GET, never the action. A new key's secret rides across that redirect
 * in the session-bound, single-use flash (never the URL). Rotate and revoke each have a GET
 * confirmation page whose form makes the change.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ApiKeyInfo } from "../../accounts/store.js";
import { PortalError } from "../portal-service.js";
import { PORTAL_PREFIX } from "./layout.js";
import type { PageContext, SignedIn } from "./page-context.js";
import {
  FAILURE_STATUS,
  formValue,
  PageError,
  requireSession,
  sendPage,
  verifyPost,
  viewerOf,
} from "./page-context.js";
import type { KeyAction } from "./pages/key-confirm-page.js";
import { keyConfirmPage } from "./pages/key-confirm-page.js";
import { keysPage, usable } from "./pages/keys-page.js";
import { noStore } from "./security-headers.js";

/** Outcomes a redirect back to /keys can announce (`?done=`); none carries a secret. */
const KEY_NOTICES: Readonly<Record<string, string>> = {
  revoked: "The key was revoked; calls with it are refused from now on.",
  created:
    "The key was created. Its secret was shown once, on the page after you created it; if you did not copy it, revoke the key and create another.",
  rotated:
    "The key was rotated. The replacement's secret was shown once, on the page after you rotated it; if you did not copy it, rotate again.",
  "already-rotated": "That key had already been rotated; nothing changed. Its replacement is in the list below.",
  "already-revoked": "That key had already been revoked; nothing changed.",
};

function toKeys(reply: FastifyReply, done: string): FastifyReply {
  noStore(reply);
  return reply.redirect(`${PORTAL_PREFIX}/keys?done=${done}`, 303);
}

async function ownKey(ctx: PageContext, session: SignedIn, id: string): Promise<ApiKeyInfo> {
  const key = (await ctx.service.listKeys(session.account.id)).find((k) => k.id === id);
  if (key === undefined)
    throw new PageError(
      404,
      "Not found",
      "You have no key with that id. It may belong to another account, or the link is wrong.",
    );
  return key;
}

/** Why `action` cannot be done to `key` any more, or undefined when it can. */
function blockedReason(action: KeyAction, key: ApiKeyInfo, now: Date): string | undefined {
  if (key.revokedAt !== null) return "This key is already revoked.";
  if (action === "rotate" && key.expiresAt !== null)
    return "This key was already rotated; rotate its replacement instead.";
  if (!usable(key, now)) return "This key no longer works; there is nothing to change.";
  return undefined;
}

function isConflict(err: unknown): boolean {
  return err instanceof PortalError && err.failure.kind === "conflict";
}

/** Registers /keys, its create form, and the rotate and revoke confirmations and actions. */
export function keyRoutes(app: FastifyInstance, ctx: PageContext): void {
  app.get<{ Querystring: { done?: string } }>("/keys", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    const fresh = ctx.flash.take(session.token);
    const keys = await ctx.service.listKeys(session.account.id);
    // With the secret on screen, the "shown once" notice would only confuse.
    const notice = fresh === undefined && req.query.done !== undefined ? KEY_NOTICES[req.query.done] : undefined;
    return sendPage(
      reply,
      200,
      keysPage(viewerOf(session), keys, {
        ...(fresh !== undefined ? { fresh } : {}),
        ...(notice !== undefined ? { notice } : {}),
      }),
    );
  });

  app.post("/keys", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    const name = formValue(req, "name");
    try {
      const created = await ctx.service.createKey(session.account.id, name);
      ctx.flash.put(session.token, { secret: created.key, info: created.info });
      return toKeys(reply, "created");
    } catch (err) {
      // A refused name re-renders the form in place with its message (nothing was created).
      if (!(err instanceof PortalError) || err.failure.kind !== "invalid") throw err;
      const keys = await ctx.service.listKeys(session.account.id);
      return sendPage(
        reply,
        FAILURE_STATUS.invalid,
        keysPage(viewerOf(session), keys, { name, nameError: err.failure.message }),
      );
    }
  });

  for (const action of ["rotate", "revoke"] as const) {
    app.get<{ Params: { id: string } }>(`/keys/:id/${action}`, async (req, reply) => {
      const session = await requireSession(ctx, req, reply);
      if (session === undefined) return reply;
      const key = await ownKey(ctx, session, req.params.id);
      const blocked = blockedReason(action, key, new Date());
      return sendPage(
        reply,
        blocked === undefined ? 200 : 409,
        keyConfirmPage(viewerOf(session), action, key, blocked),
      );
    });
  }

  app.post<{ Params: { id: string } }>("/keys/:id/rotate", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    try {
      const rotated = await ctx.service.rotateKey(session.account.id, req.params.id);
      ctx.flash.put(session.token, { secret: rotated.key, info: rotated.info, replaced: rotated.oldKey });
      return toKeys(reply, "rotated");
    } catch (err) {
      // The confirmation sent twice (back button, double click): the first one did the work.
      if (isConflict(err)) return toKeys(reply, "already-rotated");
      throw err;
    }
  });

  app.post<{ Params: { id: string } }>("/keys/:id/revoke", async (req, reply) => {
    const session = await requireSession(ctx, req, reply);
    if (session === undefined) return reply;
    verifyPost(ctx, req, session);
    try {
      await ctx.service.revokeKey(session.account.id, req.params.id);
      return toKeys(reply, "revoked");
    } catch (err) {
      if (isConflict(err)) return toKeys(reply, "already-revoked");
      throw err;
    }
  });
}
