/** The sign-in and sign-up pages (pre-session: their CSRF token is the double-submit cookie's). */
import { MAX_NAME_LENGTH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../account-rules.js";
import { csrfInput, errorSummary, field, formAlert } from "../form-fields.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import { layout, PORTAL_PREFIX } from "../layout.js";

/** What a sign-in or sign-up form re-renders with after a failure. */
export interface AuthFormState {
  csrfToken: string;
  email?: string;
  name?: string;
  /** Errors by field name. */
  errors?: Record<string, string>;
  /** A message about the whole form (bad credentials, rate limited). */
  alert?: string;
  /** Where to go after signing in (a /portal path). */
  next?: string;
}

/** The sign-in page. */
export function signInPage(s: AuthFormState): SafeHtml {
  const body = html`<section class="card narrow">
  ${formAlert(s.alert)}
  ${errorSummary(s.errors, { email: "email", password: "password" })}
  <form method="post" action="${PORTAL_PREFIX}/sign-in" novalidate>
    ${csrfInput(s.csrfToken)}
    ${s.next !== undefined && html`<input type="hidden" name="next" value="${s.next}">`}
    ${field({ id: "email", name: "email", label: "Email", type: "email", value: s.email ?? "", error: s.errors?.email, autocomplete: "username", required: true })}
    ${field({ id: "password", name: "password", label: "Password", type: "password", error: s.errors?.password, autocomplete: "current-password", required: true })}
    <button type="submit">Sign in</button>
  </form>
  <p>No account yet? <a href="${PORTAL_PREFIX}/sign-up">Sign up</a>.</p>
</section>`;
  return layout({ title: "Sign in", current: "sign-in", body });
}

/** The sign-up page. */
export function signUpPage(s: AuthFormState): SafeHtml {
  const body = html`<section class="card narrow">
  ${formAlert(s.alert)}
  ${errorSummary(s.errors, { name: "name", email: "email", password: "password" })}
  <form method="post" action="${PORTAL_PREFIX}/sign-up" novalidate>
    ${csrfInput(s.csrfToken)}
    ${field({ id: "name", name: "name", label: "Name", value: s.name ?? "", error: s.errors?.name, autocomplete: "name", required: true, maxLength: MAX_NAME_LENGTH, hint: "Your name or your organisation's; shown on your dashboard." })}
    ${field({ id: "email", name: "email", label: "Email", type: "email", value: s.email ?? "", error: s.errors?.email, autocomplete: "email", required: true })}
    ${field({ id: "password", name: "password", label: "Password", type: "password", error: s.errors?.password, autocomplete: "new-password", required: true, hint: `${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.` })}
    <button type="submit">Create account</button>
  </form>
  <p>Already have an account? <a href="${PORTAL_PREFIX}/sign-in">Sign in</a>.</p>
</section>`;
  return layout({ title: "Sign up", current: "sign-up", body });
}

/** After a sign-up, new email or taken: the same page either way. */
export function signUpSentPage(): SafeHtml {
  const body = html`<section class="card narrow">
  <h2>Check your inbox</h2>
  <p>We sent a mail to the address you gave. Open the link in it to confirm your address and sign in.
  If you already have an account, the mail says so; <a href="${PORTAL_PREFIX}/sign-in">sign in</a> instead.</p>
</section>`;
  return layout({ title: "Check your inbox", current: "sign-up", body });
}

/** The link from the verification mail: one button, so a mail scanner fetching it spends nothing. */
export function verifyEmailPage(s: { csrfToken: string; token: string; alert?: string }): SafeHtml {
  const body = html`<section class="card narrow">
  ${formAlert(s.alert)}
  <form method="post" action="${PORTAL_PREFIX}/verify-email">
    ${csrfInput(s.csrfToken)}
    <input type="hidden" name="token" value="${s.token}">
    <p>Confirm your email address to finish signing up.</p>
    <button type="submit">Confirm my address</button>
  </form>
</section>`;
  return layout({ title: "Confirm your address", current: "sign-up", body });
}
