/**
 * Sends a portal form the way a browser does, without one: GET the page for its pre-session
 * CSRF cookie and hidden token, then POST the form with both. For suites that need the real
 * HTTP answer (status, headers, page) rather than a rendered browser.
 */
import { CSRF_FIELD } from "../../src/portal/web/csrf.js";

/** The raw answer to a posted form. */
export interface FormAnswer {
  status: number;
  location: string | null;
  setCookie: string[];
  body: string;
}

/** GETs `page` under `baseUrl`, then POSTs `fields` to `action` (default: the same path). */
export async function submitPortalForm(
  baseUrl: string,
  page: string,
  fields: Record<string, string>,
  action = page,
): Promise<FormAnswer> {
  const form = await fetch(`${baseUrl}${page}`);
  const html = await form.text();
  const cookies = form.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(html)?.[1];
  if (token === undefined) throw new Error(`${page} has no ${CSRF_FIELD} field`);
  const res = await fetch(`${baseUrl}${action}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies.join("; ") },
    body: new URLSearchParams({ ...fields, [CSRF_FIELD]: token }).toString(),
  });
  return {
    status: res.status,
    location: res.headers.get("location"),
    setCookie: res.headers.getSetCookie(),
    body: await res.text(),
  };
}
