/** The page for a refused or failed request: the status, a title and what to do about it. */

import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";

/** An error page. */
export function errorPage(status: number, title: string, message: string, viewer?: Viewer): SafeHtml {
  const body = html`<section class="card narrow">
  <p class="status">Error ${status}</p>
  <p role="alert">${message}</p>
  <p><a href="${PORTAL_PREFIX}/${viewer === undefined ? "sign-in" : "dashboard"}">${viewer === undefined ? "Go to sign in" : "Back to the dashboard"}</a></p>
</section>`;
  return layout({ title, viewer, body });
}
