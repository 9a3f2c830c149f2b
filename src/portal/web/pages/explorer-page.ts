/**
 * The interactive explorer's page. The server lists the operations (REST path and gRPC method,
 * from the proto's http rules) with example requests; explorer.js builds each form from the
 * OpenAPI document at run time, checks the documented rules before a call is spent, sends the
 * real API call and renders the answer as cards (raw JSON one click away); trends also get a
 * chart of post counts per topic. The key field never reaches our server except as the
 * Authorization header of that call, which the limiter meters like any other.
 */

import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import type { Viewer } from "../layout.js";
import { layout, PORTAL_PREFIX } from "../layout.js";

/** A ready-made request the explorer can fill in. */
export interface ExplorerExample {
  label: string;
  /** The JSON request body (REST field names). */
  body: Readonly<Record<string, unknown>>;
}

/** One operation the explorer offers. */
export interface ExplorerOperation {
  /** Stable id for element ids ("semantic_search"). */
  id: string;
  label: string;
  /** REST path ("/api/v1/search/semantic"). */
  restPath: string;
  /** gRPC path ("/threadsight.v1.SearchService/SemanticSearch"). */
  grpcPath: string;
  description: string;
  examples: readonly ExplorerExample[];
}

/** Operations whose query a monitor can keep watching, and the monitor kind it becomes. */
const MONITOR_KIND_OF: Readonly<Record<string, string>> = { semantic_search: "search", leads: "leads" };

/** "Create from a search": explorer.js adds the query typed in the form to the link on click. */
function monitorLink(op: ExplorerOperation): SafeHtml {
  const kind = MONITOR_KIND_OF[op.id];
  if (kind === undefined) return html``;
  return html`<p><a class="monitor-link" data-operation="${op.id}" href="${PORTAL_PREFIX}/monitors?kind=${kind}">Create a monitor from this query</a></p>`;
}

function operation(op: ExplorerOperation): SafeHtml {
  const examples = op.examples.map(
    (e) =>
      html`<button type="button" class="secondary example" data-example="${JSON.stringify(e.body)}">${e.label}</button>`,
  );
  return html`<section class="card operation" id="op-${op.id}" aria-labelledby="op-${op.id}-heading" data-rest-path="${op.restPath}" data-grpc-path="${op.grpcPath}" data-operation="${op.id}">
  <h2 id="op-${op.id}-heading">${op.label} <code>POST ${op.restPath}</code></h2>
  <p>${op.description}</p>
  <div class="examples" role="group" aria-label="${op.label} examples"><span class="hint">Examples:</span> ${examples}</div>
  <form class="explorer-form" novalidate>
    <div class="fields" data-fields-for="${op.id}"><p class="hint">Loading the request schema…</p></div>
    <p class="field-error form-check" role="alert" hidden></p>
    <button type="submit">Try it</button>
  </form>
  ${monitorLink(op)}
  <div class="response" hidden aria-live="polite">
    <h3>Response</h3>
    <p class="response-status"></p>
    <div class="response-summary"></div>
    <div class="response-chart" hidden><canvas role="img" aria-label="Posts per topic"></canvas></div>
    <div class="response-cards"></div>
    <details class="raw">
      <summary>Raw JSON and headers</summary>
      <pre class="response-body" tabindex="0"></pre>
      <div class="table-scroll"><table class="response-headers"><caption>Response headers</caption><thead><tr><th scope="col">Header</th><th scope="col">Value</th></tr></thead><tbody></tbody></table></div>
    </details>
  </div>
  <details class="commands" hidden>
    <summary>The same call with curl or buf curl</summary>
    <h3>curl</h3>
    <pre class="cmd-curl" tabindex="0"></pre>
    <h3>buf curl (gRPC)</h3>
    <pre class="cmd-buf" tabindex="0"></pre>
  </details>
</section>`;
}

/** The explorer page. */
export function explorerPage(viewer: Viewer, operations: readonly ExplorerOperation[]): SafeHtml {
  const body = html`<section class="card" aria-labelledby="key-heading">
  <h2 id="key-heading">Your API key</h2>
  <div class="field">
    <label for="explorer-key">API key</label>
    <p class="hint" id="explorer-key-hint">Sent only as the Authorization header of the calls below. A key you just created in this tab is filled in. Each call sent counts toward your quota; a form that breaks a documented rule is stopped here and costs nothing.</p>
    <input id="explorer-key" type="password" autocomplete="off" spellcheck="false" aria-describedby="explorer-key-hint">
  </div>
  <p class="field-error" id="explorer-error" role="alert" hidden></p>
</section>
${operations.map(operation)}`;
  return layout({
    title: "API explorer",
    current: "explorer",
    viewer,
    body,
    scripts: ["chart.umd.min.js", "explorer.js"],
  });
}
