/**
 * The plan picker: the catalog as a table, one form per plan. Which changes are possible, and
 * how they are paid for, depends on the billing provider (billing.ts).
 */
import type { PlanOffer } from "../../portal-service.js";
import { csrfInput, formAlert } from "../form-fields.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";

const PERIODS: Readonly<Record<string, string>> = {
  calendar_month: "per calendar month",
  "7d": "per 7 days",
  "1d": "per day",
};

function quota(p: PlanOffer): string {
  if (p.quota === null) return "Unlimited calls";
  return `${p.quota.toLocaleString("en-US")} calls ${PERIODS[p.period] ?? `per ${p.period}`}`;
}

/** The plans page; `notice` confirms a change that just happened. */
export function plansPage(
  viewer: Viewer,
  plans: readonly PlanOffer[],
  billing: "none" | "stripe",
  notice?: string,
): SafeHtml {
  const rows = plans.map((p) => {
    const current = p.id === viewer.account.plan;
    return html`<tr${current ? html` class="current"` : ""}>
  <th scope="row">${p.name}${current && html` <span class="badge">Current plan</span>`}</th>
  <td>${quota(p)}</td>
  <td>${p.ratePerMinute === null ? "Custom" : `${p.ratePerMinute} / minute`}</td>
  <td>${p.apiAccess ? "Yes" : "No"}</td>
  <td>${
    current
      ? html`<span class="muted">Selected</span>`
      : html`<form method="post" action="${PORTAL_PREFIX}/plans">${csrfInput(viewer.csrfToken)}<input type="hidden" name="plan" value="${p.id}"><button type="submit" aria-label="Choose ${p.name}">Choose</button></form>`
  }</td>
</tr>`;
  });
  const body = html`${notice !== undefined && html`<p class="notice" role="status">${notice}</p>`}
${formAlert(undefined)}
<section class="card">
  <p>${
    billing === "stripe"
      ? "A paid plan is bought through Stripe Checkout and applies to every key of your account once the payment is confirmed; a move to Free applies at the end of the paid period."
      : "Paid plans cannot be bought here: ask the operator to move your account. A move to Free applies at once to every key of your account."
  }</p>
  <table class="plans">
    <caption>Available plans</caption>
    <thead><tr><th scope="col">Plan</th><th scope="col">Quota</th><th scope="col">Rate limit</th><th scope="col">API access</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
</section>`;
  return layout({ title: "Plans", current: "plans", viewer, body });
}
