/** The dashboard: plan, this period's usage (used / remaining / reset), per operation, daily chart. */
import type { PlanOffer, PortalUsage } from "../../portal-service.js";
import { count, dateTime } from "../formats.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";
import { usageChart } from "../usage-chart.js";

const OPERATION_LABELS: Readonly<Record<string, string>> = {
  semantic_search: "Semantic search",
  vector_search: "Vector search",
  trends: "Trends",
  leads: "Leads",
};

/** The dashboard page. */
export function dashboardPage(viewer: Viewer, usage: PortalUsage, plan: PlanOffer | undefined): SafeHtml {
  const limit = count(usage.limit);
  const remaining = count(usage.remaining);
  const ops = usage.perOperation.map(
    (o) =>
      html`<tr><th scope="row">${OPERATION_LABELS[o.operation] ?? o.operation}</th><td data-operation="${o.operation}">${count(o.count)}</td></tr>`,
  );
  const body = html`<section class="card" aria-labelledby="plan-heading">
  <h2 id="plan-heading">Plan</h2>
  <p><strong id="current-plan">${plan?.name ?? usage.plan}</strong> · ${count(usage.ratePerMinute)} requests per minute · <a href="${PORTAL_PREFIX}/plans">Change plan</a></p>
</section>
<section class="card" aria-labelledby="usage-heading">
  <h2 id="usage-heading">Usage this period</h2>
  <dl class="stats">
    <div><dt>Used</dt><dd id="usage-used">${count(usage.used)}</dd></div>
    <div><dt>Remaining</dt><dd id="usage-remaining">${remaining}</dd></div>
    <div><dt>Quota</dt><dd id="usage-limit">${limit}</dd></div>
    <div><dt>Resets</dt><dd id="usage-reset">${dateTime(usage.periodEnd)}</dd></div>
  </dl>
  <p class="hint">Period started ${dateTime(usage.periodStart)}. Calls from the explorer count like any other.</p>
  <table class="per-operation">
    <caption>Calls this period by operation</caption>
    <thead><tr><th scope="col">Operation</th><th scope="col">Calls</th></tr></thead>
    <tbody>${ops}</tbody>
  </table>
</section>
<section class="card" aria-labelledby="daily-heading">
  <h2 id="daily-heading">Daily calls</h2>
  ${usageChart(usage.daily)}
</section>`;
  return layout({ title: "Dashboard", current: "dashboard", viewer, body });
}
