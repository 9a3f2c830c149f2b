/**
 * What every portal route shares: the service, the cookie policy, and the steps each request
 * goes through — find the session from its cookie, require one (else to sign in), verify a POST
 * (same origin + CSRF token), send a page. Failures are PageErrors, which the plugin's error
 * handler renders as 4xx pages.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ActiveSession, PortalFailure, PortalService } from "../portal-service.js";
import type { CookiePolicy } from "./cookies.js";
import { parseCookies, setCookie } from "./cookies.js";
import { CSRF_FIELD, crossOriginReason, tokensMatch } from "./csrf.js";
import type { FlashStore } from "./flash-store.js";
import type { SafeHtml } from "./html.js";
import type { Viewer } from "./layout.js";
import { PORTAL_PREFIX } from "./layout.js";
import type { FreshKey } from "./pages/keys-page.js";
import { noStore } from "./security-headers.js";

/** Shared by every route of the plugin. */
export interface PageContext {
  service: PortalService;
  cookies: CookiePolicy;
  scheme: "http" | "https";
  /** A new key's secret on its way from the POST to the GET that shows it. */
  flash: FlashStore<FreshKey>;
}

/** A signed-in request's session together with the cookie's token (what a flash is bound to). */
export type SignedIn = ActiveSession & { token: string };

/** A request the portal refuses, rendered as an error page with this status. */
export class PageError extends Error {
  override readonly name = "PageError";
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** HTTP status for every PortalFailure kind (exhaustive: a new kind fails to compile). */
export const FAILURE_STATUS: Readonly<Record<PortalFailure["kind"], number>> = {
  invalid: 400,
  email_taken: 409,
  bad_credentials: 401,
  rate_limited: 429,
  not_found: 404,
  forbidden: 403,
  conflict: 409,
};

/** Page titles per failure kind. */
export const FAILURE_TITLE: Readonly<Record<PortalFailure["kind"], string>> = {
  invalid: "Invalid request",
  email_taken: "Email already registered",
  bad_credentials: "Sign-in failed",
  rate_limited: "Too many attempts",
  not_found: "Not found",
  forbidden: "Forbidden",
  conflict: "Conflict",
};

/** A url-encoded form body as the parser leaves it. */
export type FormBody = Record<string, string>;

/** A form field's value ("" when absent). */
export function formValue(req: FastifyRequest, name: string): string {
  const body = req.body as FormBody | undefined;
  const v = body?.[name];
  return typeof v === "string" ? v : "";
}

/** The session behind the request's cookie, or undefined. */
export async function findSession(
  ctx: PageContext,
  req: FastifyRequest,
): Promise<{ token: string; session: ActiveSession } | undefined> {
  const token = parseCookies(req.headers.cookie).get(ctx.cookies.session);
  if (token === undefined || token === "") return undefined;
  const session = await ctx.service.session(token);
  return session === undefined ? undefined : { token, session };
}

/** The viewer the layout shows for a session. */
export function viewerOf(session: ActiveSession): Viewer {
  return { account: session.account, csrfToken: session.csrfToken };
}

/** Only our own pages are valid `next` targets (no open redirect). */
export function safeNext(next: string | undefined): string | undefined {
  return next !== undefined && /^\/portal\/[A-Za-z0-9_\-/]*$/.test(next) && !next.includes("//") ? next : undefined;
}

/**
 * The session, or a 303 to sign in (dropping a stale cookie) and undefined: the route returns.
 */
export async function requireSession(
  ctx: PageContext,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<SignedIn | undefined> {
  const found = await findSession(ctx, req);
  if (found !== undefined) return { ...found.session, token: found.token };
  if (parseCookies(req.headers.cookie).has(ctx.cookies.session))
    reply.header("set-cookie", setCookie(ctx.cookies, ctx.cookies.session, "", 0));
  const next = safeNext(req.method === "GET" ? req.url.split("?")[0] : undefined);
  noStore(reply);
  await reply.redirect(`${PORTAL_PREFIX}/sign-in${next !== undefined ? `?next=${encodeURIComponent(next)}` : ""}`, 303);
  return undefined;
}

/** Refuses a cross-origin POST (403) before any form is read. */
export function requireSameOrigin(ctx: PageContext, req: FastifyRequest): void {
  const reason = crossOriginReason(req, ctx.scheme);
  if (reason !== undefined)
    throw new PageError(
      403,
      "Forbidden",
      `This form must be sent from this site (${reason}). Reload the page and try again.`,
    );
}

/** Verifies a signed-in POST: same origin and the session's CSRF token. */
export function verifyPost(ctx: PageContext, req: FastifyRequest, session: ActiveSession): void {
  requireSameOrigin(ctx, req);
  if (!tokensMatch(session.csrfToken, formValue(req, CSRF_FIELD))) {
    throw new PageError(
      403,
      "Forbidden",
      "The form's security token is missing or out of date. Reload the page and try again.",
    );
  }
}

/** Sends a page (no-store: pages show account data). */
export function sendPage(reply: FastifyReply, status: number, page: SafeHtml): FastifyReply {
  noStore(reply);
  return reply.code(status).type("text/html; charset=utf-8").send(page.value);
}
