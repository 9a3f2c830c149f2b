/** The operator view: every account with plan, active keys and calls this month. Admins only. */
import type { AccountSummary, PlanOffer } from "../../portal-service.js";
import { count, date } from "../formats.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout } from "../layout.js";

/** The admin page. */
export function adminPage(viewer: Viewer, accounts: readonly AccountSummary[], plans: readonly PlanOffer[]): SafeHtml {
  const planNames = new Map(plans.map((p) => [p.id, p.name]));
  const counts = new Map<string, number>();
  for (const a of accounts) if (a.plan !== null) counts.set(a.plan, (counts.get(a.plan) ?? 0) + 1);
  const rows = accounts.map(
    (a) => html`<tr>
  <th scope="row">${a.name}${a.isAdmin && html` <span class="badge">admin</span>`}</th>
  <td>${a.email ?? "—"}</td>
  <td>${a.plan === null ? "—" : (planNames.get(a.plan) ?? a.plan)}</td>
  <td>${count(a.activeKeys)}</td>
  <td>${count(a.callsThisMonth)}</td>
  <td>${date(a.createdAt)}</td>
</tr>`,
  );
  const planRows = plans.map(
    (p) => html`<tr><th scope="row">${p.name}</th><td>${count(counts.get(p.id) ?? 0)}</td></tr>`,
  );
  const body = html`<section class="card" aria-labelledby="accounts-heading">
  <h2 id="accounts-heading">Accounts (${count(accounts.length)})</h2>
  <table class="accounts">
    <caption class="visually-hidden">All accounts</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Plan</th><th scope="col">Active keys</th><th scope="col">Calls this month (UTC)</th><th scope="col">Created</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
</section>
<section class="card" aria-labelledby="plans-heading">
  <h2 id="plans-heading">Accounts per plan</h2>
  <table><caption class="visually-hidden">Accounts per plan</caption><thead><tr><th scope="col">Plan</th><th scope="col">Accounts</th></tr></thead><tbody>${planRows}</tbody></table>
</section>`;
  return layout({ title: "Admin", current: "admin", viewer, body });
}
