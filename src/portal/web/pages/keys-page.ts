/**
 * API keys: create with a name, list (prefix, plan, created, status), and links to the rotate and
 * revoke confirmation pages. A new or rotated key's secret appears in exactly one response (the
 * GET after the form's redirect, from a single-use flash) with a copy button; the copy script
 * also hands it to the explorer through sessionStorage (this browser tab only).
 */
import type { ApiKeyInfo } from "../../../accounts/store.js";
import { csrfInput, field } from "../form-fields.js";
import { date, dateTime, dateTimeText } from "../formats.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";

/** A secret to show once. */
export interface FreshKey {
  secret: string;
  info: ApiKeyInfo;
  /** Set when the key replaced another (rotation). */
  replaced?: ApiKeyInfo;
}

/** What the keys page shows besides the list. */
export interface KeysPageState {
  fresh?: FreshKey;
  nameError?: string;
  name?: string;
  notice?: string;
}

function status(k: ApiKeyInfo, now: Date): string {
  if (k.revokedAt !== null) return "Revoked";
  if (k.expiresAt !== null) return k.expiresAt > now ? `Rotated; works until ${dateTimeText(k.expiresAt)}` : "Expired";
  return "Active";
}

/** Whether calls with the key still work (so revoking it means something). */
export function usable(k: ApiKeyInfo, now: Date): boolean {
  return k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now);
}

function freshKey(f: FreshKey): SafeHtml {
  return html`<section class="card fresh-key" aria-labelledby="fresh-heading">
  <h2 id="fresh-heading">${f.replaced === undefined ? "Your new key" : "Your replacement key"}: ${f.info.name}</h2>
  <p class="warning"><strong>Copy it now: this key will not be shown again.</strong> We store only a hash of it.</p>
  <div class="secret-row">
    <label for="new-key-secret">API key</label>
    <input id="new-key-secret" class="secret" type="text" readonly value="${f.secret}" aria-describedby="copy-status">
    <button type="button" id="copy-key" data-copy-target="new-key-secret">Copy</button>
    <span id="copy-status" role="status" class="hint"></span>
  </div>
  ${f.replaced !== undefined && html`<p>The old key (${f.replaced.displayPrefix}…) keeps working until ${f.replaced.expiresAt === null ? "now" : dateTime(f.replaced.expiresAt)} so you can switch over.</p>`}
  <p><a href="${PORTAL_PREFIX}/explorer">Try it in the explorer</a> — this tab remembers the key for the explorer.</p>
</section>`;
}

/** The keys page. */
export function keysPage(
  viewer: Viewer,
  keys: readonly ApiKeyInfo[],
  s: KeysPageState = {},
  now = new Date(),
): SafeHtml {
  const rows = keys.map((k) => {
    const actions = usable(k, now)
      ? html`${k.expiresAt === null && html`<a class="button secondary" href="${PORTAL_PREFIX}/keys/${k.id}/rotate" aria-label="Rotate key ${k.name}">Rotate</a>`}
<a class="button danger" href="${PORTAL_PREFIX}/keys/${k.id}/revoke" aria-label="Revoke key ${k.name}">Revoke</a>`
      : html`<span class="muted">—</span>`;
    return html`<tr data-key-id="${k.id}">
  <th scope="row">${k.name}</th>
  <td data-label="Prefix"><code>${k.displayPrefix}…</code></td>
  <td data-label="Plan">${k.plan}</td>
  <td data-label="Created">${date(k.createdAt)}</td>
  <td data-label="Status" class="key-status">${status(k, now)}</td>
  <td data-label="Actions"><div class="actions">${actions}</div></td>
</tr>`;
  });
  const body = html`${s.notice !== undefined && html`<p class="notice" role="status">${s.notice}</p>`}
${s.fresh !== undefined && freshKey(s.fresh)}
<section class="card" aria-labelledby="create-heading">
  <h2 id="create-heading">Create a key</h2>
  <form method="post" action="${PORTAL_PREFIX}/keys" class="inline" novalidate>
    ${csrfInput(viewer.csrfToken)}
    ${field({ id: "key-name", name: "name", label: "Key name", value: s.name ?? "", error: s.nameError, required: true, hint: 'For you to tell keys apart, e.g. "production".' })}
    <button type="submit">Create key</button>
  </form>
</section>
<section class="card" aria-labelledby="list-heading">
  <h2 id="list-heading">Your keys</h2>
  ${
    keys.length === 0
      ? html`<p>No keys yet.</p>`
      : html`<div class="table-scroll"><table class="keys stack">
    <caption class="visually-hidden">API keys, newest first</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Plan</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
</section>`;
  return layout({
    title: "API keys",
    current: "keys",
    viewer,
    body,
    scripts: s.fresh !== undefined ? ["copy-key.js"] : [],
  });
}
