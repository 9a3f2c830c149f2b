/**
 * Monitors: the account's monitors (name, kind, query, status, channel) and the form that
 * creates one with a webhook channel. The form can arrive pre-filled from the explorer's query
 * ("create from a search"); a refused form comes back with each error next to its field.
 */
import type { StoredMonitor } from "../../../monitors/monitor-spec.js";
import { MONITOR_KINDS } from "../../../monitors/monitor-spec.js";
import { csrfInput, errorSummary, field, formAlert } from "../form-fields.js";
import { date } from "../formats.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";

/** The create form's values. */
export interface MonitorForm {
  name: string;
  kind: string;
  query: string;
  url: string;
}

/** What the monitors page shows besides the list. */
export interface MonitorsPageState {
  form?: MonitorForm;
  /** Form field name -> message. */
  errors?: Record<string, string>;
  /** A refusal not tied to one field (the plan's active-monitor limit). */
  alert?: string;
  notice?: string;
}

/** Ids of the create form's controls, by field name (the error summary links to them). */
const FIELD_IDS: Readonly<Record<string, string>> = {
  name: "monitor-name",
  kind: "monitor-kind",
  query: "monitor-query",
  url: "monitor-url",
};

const KIND_LABELS: Readonly<Record<string, string>> = {
  search: "Search (meaning and keywords)",
  leads: "Leads (posts with buying intent)",
  keywords: "Keywords (boolean expression)",
};

/** "Active", or "Paused" with the service's reason when it paused the monitor. */
export function monitorStatus(m: StoredMonitor): string {
  if (!m.paused) return "Active";
  return m.pausedReason === "" ? "Paused" : `Paused: ${m.pausedReason}`;
}

/** The monitor's channels in one line ("webhook https://…"). */
export function channelText(m: StoredMonitor): string {
  if (m.channels.length === 0) return "none (watch or list deliveries through the API)";
  return m.channels.map((c) => `${c.type} ${c.type === "email" ? c.email : c.url}`).join(", ");
}

function kindSelect(value: string, error: string | undefined): SafeHtml {
  const options = MONITOR_KINDS.map(
    (k) => html`<option value="${k}"${k === value ? html` selected` : ""}>${KIND_LABELS[k] ?? k}</option>`,
  );
  return html`<div class="field${error !== undefined ? " has-error" : ""}">
  <label for="monitor-kind">Kind</label>
  <select id="monitor-kind" name="kind"${error !== undefined ? html` aria-invalid="true" aria-describedby="monitor-kind-error" autofocus` : ""}>${options}</select>
  ${error !== undefined && html`<p class="field-error" id="monitor-kind-error">${error}</p>`}
</div>`;
}

/** The monitors page. */
export function monitorsPage(viewer: Viewer, monitors: readonly StoredMonitor[], s: MonitorsPageState = {}): SafeHtml {
  const form = s.form ?? { name: "", kind: "search", query: "", url: "" };
  const errors = s.errors ?? {};
  const rows = monitors.map(
    (m) => html`<tr data-monitor-id="${m.id}">
  <th scope="row"><a href="${PORTAL_PREFIX}/monitors/${m.id}">${m.name}</a></th>
  <td data-label="Kind">${m.kind}</td>
  <td data-label="Query" class="monitor-query">${m.query}</td>
  <td data-label="Status" class="monitor-status">${monitorStatus(m)}</td>
  <td data-label="Channel" class="monitor-channel">${channelText(m)}</td>
  <td data-label="Created">${date(new Date(m.created))}</td>
</tr>`,
  );
  const body = html`${s.notice !== undefined && html`<p class="notice" role="status">${s.notice}</p>`}
<section class="card" aria-labelledby="create-heading">
  <h2 id="create-heading">Create a monitor</h2>
  <p>New posts that match are sent to your webhook as they are ingested, signed with the monitor's secret.</p>
  ${errorSummary(errors, FIELD_IDS)}
  ${formAlert(s.alert)}
  <form method="post" action="${PORTAL_PREFIX}/monitors" novalidate>
    ${csrfInput(viewer.csrfToken)}
    ${field({ id: FIELD_IDS.name!, name: "name", label: "Name", value: form.name, error: errors.name, required: true, maxLength: 100, hint: 'For you to tell monitors apart, e.g. "pricing questions".' })}
    ${kindSelect(form.kind, errors.kind)}
    ${field({ id: FIELD_IDS.query!, name: "query", label: "Query", value: form.query, error: errors.query, required: true, hint: 'Search and leads: words or a question. Keywords: an expression such as "notion AND (pricing OR cost)".' })}
    ${field({ id: FIELD_IDS.url!, name: "url", label: "Webhook URL", value: form.url, error: errors.url, required: true, hint: "An https address that accepts POSTed JSON." })}
    <button type="submit">Create monitor</button>
  </form>
</section>
<section class="card" aria-labelledby="list-heading">
  <h2 id="list-heading">Your monitors</h2>
  ${
    monitors.length === 0
      ? html`<p>No monitors yet.</p>`
      : html`<div class="table-scroll"><table class="monitors stack">
    <caption class="visually-hidden">Monitors, oldest first</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Query</th><th scope="col">Status</th><th scope="col">Channel</th><th scope="col">Created</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
</section>`;
  return layout({ title: "Monitors", current: "monitors", viewer, body });
}
