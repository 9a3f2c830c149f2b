/**
 * One monitor: its settings, pause or resume, rotate the signing secret (the new one shown on
 * the page after the form, once), and its recent delivery attempts as ListDeliveries returns
 * them (status, response code, time).
 */
import type { StoredMonitor } from "../../../monitors/monitor-spec.js";
import type { ListedAttempt } from "../../../monitors/monitor-store.js";
import { SECRET_GRACE_MS } from "../../../monitors/monitors-core.js";
import { csrfInput } from "../form-fields.js";
import { dateTime, dateTimeText } from "../formats.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";
import { channelText, monitorStatus } from "./monitors-page.js";

/** What the page shows besides the monitor. */
export interface MonitorPageState {
  /** A secret to show once: right after the monitor was created or its secret rotated. */
  freshSecret?: string;
  notice?: string;
}

const STATUS_TEXT: Readonly<Record<ListedAttempt["status"], string>> = {
  delivered: "Delivered",
  failed: "Failed (will retry)",
  dead_lettered: "Dead-lettered",
  deferred: "Deferred",
};

function secretCard(secret: string, previousUntil: number): SafeHtml {
  return html`<section class="card fresh-key" aria-labelledby="secret-heading">
  <h2 id="secret-heading">Signing secret</h2>
  <p class="warning"><strong>Copy it now: this secret will not be shown again.</strong></p>
  <div class="secret-row">
    <label for="monitor-secret">Secret</label>
    <input id="monitor-secret" class="secret" type="text" readonly value="${secret}">
  </div>
  ${previousUntil > 0 && html`<p>The previous secret also signs until ${dateTime(new Date(previousUntil))}, so your receiver can switch over.</p>`}
</section>`;
}

/** The page of one monitor. */
export function monitorPage(
  viewer: Viewer,
  m: StoredMonitor,
  attempts: readonly ListedAttempt[],
  s: MonitorPageState = {},
): SafeHtml {
  const base = `${PORTAL_PREFIX}/monitors/${m.id}`;
  const rows = attempts.map(
    (a) => html`<tr data-attempt-id="${a.id}" data-status="${a.status}">
  <td data-label="Time">${dateTime(new Date(a.at))}</td>
  <td data-label="Status" class="attempt-status">${STATUS_TEXT[a.status]}</td>
  <td data-label="Response code" class="attempt-code">${a.responseCode === 0 ? "—" : String(a.responseCode)}</td>
  <td data-label="Event"><code>${a.eventId}</code></td>
  <td data-label="Channel">${a.channel}</td>
  <td data-label="Attempt">${String(a.attempt)}</td>
  <td data-label="Error">${a.error === "" ? "—" : a.error}</td>
</tr>`,
  );
  const toggle = m.paused
    ? html`<form method="post" action="${base}/resume">${csrfInput(viewer.csrfToken)}<button type="submit">Resume</button></form>`
    : html`<form method="post" action="${base}/pause">${csrfInput(viewer.csrfToken)}<button type="submit" class="secondary">Pause</button></form>`;
  const body = html`${s.notice !== undefined && html`<p class="notice" role="status">${s.notice}</p>`}
${s.freshSecret !== undefined && secretCard(s.freshSecret, m.previousSecretUntil)}
<section class="card" aria-labelledby="settings-heading">
  <h2 id="settings-heading">Settings</h2>
  <dl class="monitor-settings">
    <dt>Kind</dt><dd>${m.kind}</dd>
    <dt>Query</dt><dd class="monitor-query">${m.query}</dd>
    <dt>Status</dt><dd class="monitor-status">${monitorStatus(m)}</dd>
    <dt>Channel</dt><dd class="monitor-channel">${channelText(m)}</dd>
    <dt>Id</dt><dd><code>${m.id}</code></dd>
    <dt>Created</dt><dd>${dateTime(new Date(m.created))}</dd>
    ${m.previousSecretUntil > Date.now() && html`<dt>Previous secret</dt><dd>also signs until ${dateTimeText(new Date(m.previousSecretUntil))}</dd>`}
  </dl>
  <div class="actions">
    ${toggle}
    <form method="post" action="${base}/rotate-secret">${csrfInput(viewer.csrfToken)}<button type="submit" class="secondary">Rotate secret</button></form>
  </div>
  <p class="hint">Rotating makes a new secret; the old one keeps signing for ${String(SECRET_GRACE_MS / 3_600_000)} hours.</p>
</section>
<section class="card" aria-labelledby="deliveries-heading">
  <h2 id="deliveries-heading">Recent deliveries</h2>
  ${
    attempts.length === 0
      ? html`<p>No deliveries yet: posts that match appear here once they are ingested and sent.</p>`
      : html`<div class="table-scroll"><table class="deliveries stack">
    <caption class="visually-hidden">Delivery attempts, newest first</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Status</th><th scope="col">Response code</th><th scope="col">Event</th><th scope="col">Channel</th><th scope="col">Attempt</th><th scope="col">Error</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  <p><a href="${PORTAL_PREFIX}/monitors">All monitors</a></p>
</section>`;
  return layout({ title: `Monitor: ${m.name}`, current: "monitors", viewer, body });
}
