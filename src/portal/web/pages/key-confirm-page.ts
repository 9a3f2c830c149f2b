/**
 * The confirmation step before a key is rotated or revoked: a plain page with one POST form and
 * a way back, so a stray click never changes a key and the step works without JavaScript.
 */
import type { ApiKeyInfo } from "../../../accounts/store.js";
import { csrfInput } from "../form-fields.js";
import { date } from "../formats.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";

/** What is being confirmed. */
export type KeyAction = "rotate" | "revoke";

const TITLES: Readonly<Record<KeyAction, string>> = { rotate: "Rotate key", revoke: "Revoke key" };

/**
 * The confirmation page for `action` on `key`. `blocked` replaces the form with the reason the
 * action cannot be done any more.
 */
export function keyConfirmPage(viewer: Viewer, action: KeyAction, key: ApiKeyInfo, blocked?: string): SafeHtml {
  const what =
    action === "rotate"
      ? html`<p>A new key replaces <strong>${key.name}</strong> (<code>${key.displayPrefix}…</code>, created ${date(key.createdAt)}). Its secret is shown once, on the next page.</p>
<p>The old key keeps working for a grace period so you can switch over; the next page says until when.</p>`
      : html`<p>Calls with <strong>${key.name}</strong> (<code>${key.displayPrefix}…</code>, created ${date(key.createdAt)}) are refused from the moment you revoke it. This cannot be undone.</p>`;
  const body = html`<section class="card narrow" aria-labelledby="confirm-heading">
  <h2 id="confirm-heading">${action === "rotate" ? "Rotate" : "Revoke"} ${key.name}?</h2>
  ${
    blocked !== undefined
      ? html`<p class="alert" role="alert">${blocked}</p><p><a href="${PORTAL_PREFIX}/keys">Back to your keys</a></p>`
      : html`${what}
  <form method="post" action="${PORTAL_PREFIX}/keys/${key.id}/${action}" class="confirm">
    ${csrfInput(viewer.csrfToken)}
    <div class="actions">
      <button type="submit" class="${action === "revoke" ? "danger-solid" : ""}">${action === "rotate" ? "Yes, rotate this key" : "Yes, revoke this key"}</button>
      <a class="button secondary" href="${PORTAL_PREFIX}/keys">Cancel</a>
    </div>
  </form>`
  }
</section>`;
  return layout({ title: TITLES[action], current: "keys", viewer, body });
}
