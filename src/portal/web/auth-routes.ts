/**
 * Sign up, sign in, sign out. The two forms have no session yet, so their CSRF token is a random
 * value set as a cookie and echoed in the form (double submit), checked together with the
 * request's origin. A successful sign-in sets the session cookie for exactly the session's
 * lifetime; sign-out deletes the session server-side, so a copied cookie stops working too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { PortalSession } from "../portal-service.js";
import { PortalError } from "../portal-service.js";
import { parseCookies, setCookie } from "./cookies.js";
import { CSRF_FIELD, newCsrfToken, tokensMatch } from "./csrf.js";
import type { FieldErrors } from "./form-checks.js";
import { signInErrors, signUpErrors } from "./form-checks.js";
import { PORTAL_PREFIX } from "./layout.js";
import type { PageContext } from "./page-context.js";
import {
  FAILURE_STATUS,
  findSession,
  formValue,
  PageError,
  requireSameOrigin,
  safeNext,
  sendPage,
  verifyPost,
} from "./page-context.js";
import type { AuthFormState } from "./pages/auth-pages.js";
import { signInPage, signUpPage, signUpSentPage, verifyEmailPage } from "./pages/auth-pages.js";
import { noStore } from "./security-headers.js";

/** How long an unused sign-in form's CSRF cookie lives, seconds. */
const PRE_SESSION_TTL_SECONDS = 2 * 3600;

function preSessionToken(ctx: PageContext, req: FastifyRequest, reply: FastifyReply): string {
  const existing = parseCookies(req.headers.cookie).get(ctx.cookies.csrf);
  const token = existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : newCsrfToken();
  reply.header("set-cookie", setCookie(ctx.cookies, ctx.cookies.csrf, token, PRE_SESSION_TTL_SECONDS));
  return token;
}

function verifyPreSession(ctx: PageContext, req: FastifyRequest): void {
  requireSameOrigin(ctx, req);
  const cookie = parseCookies(req.headers.cookie).get(ctx.cookies.csrf);
  if (!tokensMatch(cookie, formValue(req, CSRF_FIELD))) {
    throw new PageError(
      403,
      "Forbidden",
      "The form's security token is missing or out of date (are cookies enabled?). Reload the page and try again.",
    );
  }
}

function startSession(ctx: PageContext, reply: FastifyReply, session: PortalSession, to: string): FastifyReply {
  const seconds = (session.expiresAt.getTime() - Date.now()) / 1000;
  reply.header("set-cookie", setCookie(ctx.cookies, ctx.cookies.session, session.token, seconds));
  noStore(reply);
  return reply.redirect(to, 303);
}

/**
 * Turns a PortalError into form state; anything else propagates. An invalid form shows every
 * field's error (`allErrors`), the service's own message first for its field.
 */
function failureState(
  err: unknown,
  base: AuthFormState,
  fields: readonly string[],
  allErrors: () => FieldErrors,
): { status: number; state: AuthFormState; retryAfter?: number } {
  if (!(err instanceof PortalError)) throw err;
  const f = err.failure;
  const status = FAILURE_STATUS[f.kind];
  if ((f.kind === "invalid" || f.kind === "email_taken") && fields.includes(f.field)) {
    const others = f.kind === "invalid" ? allErrors() : {};
    return { status, state: { ...base, errors: { ...others, [f.field]: f.message } } };
  }
  return {
    status,
    state: { ...base, alert: f.message },
    ...(f.kind === "rate_limited" ? { retryAfter: f.retryAfterSeconds } : {}),
  };
}

/** Registers the authentication routes. */
export function authRoutes(app: FastifyInstance, ctx: PageContext): void {
  app.get("/", async (req, reply) => {
    const found = await findSession(ctx, req);
    noStore(reply);
    return reply.redirect(`${PORTAL_PREFIX}/${found === undefined ? "sign-in" : "dashboard"}`, 303);
  });

  app.get<{ Querystring: { next?: string } }>("/sign-in", async (req, reply) => {
    const next = safeNext(req.query.next);
    if ((await findSession(ctx, req)) !== undefined) {
      noStore(reply);
      return reply.redirect(next ?? `${PORTAL_PREFIX}/dashboard`, 303);
    }
    return sendPage(
      reply,
      200,
      signInPage({ csrfToken: preSessionToken(ctx, req, reply), ...(next !== undefined ? { next } : {}) }),
    );
  });

  app.post("/sign-in", async (req, reply) => {
    verifyPreSession(ctx, req);
    const email = formValue(req, "email");
    const next = safeNext(formValue(req, "next"));
    try {
      const session = await ctx.service.signIn({ email, password: formValue(req, "password") }, req.ip);
      return startSession(ctx, reply, session, next ?? `${PORTAL_PREFIX}/dashboard`);
    } catch (err) {
      const base: AuthFormState = {
        csrfToken: preSessionToken(ctx, req, reply),
        email,
        ...(next !== undefined ? { next } : {}),
      };
      const { status, state, retryAfter } = failureState(err, base, ["email", "password"], () =>
        signInErrors({ email, password: formValue(req, "password") }),
      );
      if (retryAfter !== undefined) reply.header("retry-after", String(Math.max(1, Math.ceil(retryAfter))));
      return sendPage(reply, status, signInPage(state));
    }
  });

  app.get("/sign-up", async (req, reply) =>
    sendPage(reply, 200, signUpPage({ csrfToken: preSessionToken(ctx, req, reply) })),
  );

  app.post("/sign-up", async (req, reply) => {
    verifyPreSession(ctx, req);
    const email = formValue(req, "email");
    const name = formValue(req, "name");
    try {
      // The same redirect whether the email was new or taken; only the mail differs.
      await ctx.service.signUp({ email, name, password: formValue(req, "password") }, req.ip);
      noStore(reply);
      return reply.redirect(`${PORTAL_PREFIX}/sign-up/sent`, 303);
    } catch (err) {
      const all = (): FieldErrors => signUpErrors({ email, name, password: formValue(req, "password") });
      const { status, state, retryAfter } = failureState(
        err,
        { csrfToken: preSessionToken(ctx, req, reply), email, name },
        ["email", "name", "password"],
        all,
      );
      if (retryAfter !== undefined) reply.header("retry-after", String(Math.max(1, Math.ceil(retryAfter))));
      return sendPage(reply, status, signUpPage(state));
    }
  });

  app.get("/sign-up/sent", async (_req, reply) => sendPage(reply, 200, signUpSentPage()));

  app.get<{ Querystring: { token?: string } }>("/verify-email", async (req, reply) =>
    sendPage(
      reply,
      200,
      verifyEmailPage({ csrfToken: preSessionToken(ctx, req, reply), token: String(req.query.token ?? "") }),
    ),
  );

  app.post("/verify-email", async (req, reply) => {
    verifyPreSession(ctx, req);
    const token = formValue(req, "token");
    try {
      const session = await ctx.service.verifyEmail(token);
      return startSession(ctx, reply, session, `${PORTAL_PREFIX}/plans?welcome=1`);
    } catch (err) {
      if (!(err instanceof PortalError)) throw err;
      return sendPage(
        reply,
        400,
        verifyEmailPage({ csrfToken: preSessionToken(ctx, req, reply), token, alert: err.message }),
      );
    }
  });

  app.post("/sign-out", async (req, reply) => {
    const found = await findSession(ctx, req);
    if (found !== undefined) {
      verifyPost(ctx, req, found.session);
      await ctx.service.signOut(found.token);
    } else {
      requireSameOrigin(ctx, req);
    }
    reply.header("set-cookie", setCookie(ctx.cookies, ctx.cookies.session, "", 0));
    noStore(reply);
    return reply.redirect(`${PORTAL_PREFIX}/sign-in`, 303);
  });
}
