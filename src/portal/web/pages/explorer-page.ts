/**
 * The interactive explorer's page. The server lists the operations (REST path and gRPC method,
 * from the proto's http rules); explorer.js builds each form from the OpenAPI document at run
 * time and sends the real API call. The key field never reaches our server except as the
 * Authorization header of that call, which the limiter meters like any other.
 */
import { html } from "../html.js";
import type { SafeHtml } from "../html.js";
import { layout } from "../layout.js";
import type { Viewer } from "../layout.js";

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
}

function operation(op: ExplorerOperation): SafeHtml {
  return html`<section class="card operation" id="op-${op.id}" aria-labelledby="op-${op.id}-heading" data-rest-path="${op.restPath}" data-grpc-path="${op.grpcPath}" data-operation="${op.id}">
  <h2 id="op-${op.id}-heading">${op.label} <code>POST ${op.restPath}</code></h2>
  <p>${op.description}</p>
  <form class="explorer-form" novalidate>
    <div class="fields" data-fields-for="${op.id}"><p class="hint">Loading the request schema…</p></div>
    <button type="submit">Try it</button>
  </form>
  <div class="commands" hidden>
    <h3>curl</h3>
    <pre class="cmd-curl" tabindex="0"></pre>
    <h3>buf curl (gRPC)</h3>
    <pre class="cmd-buf" tabindex="0"></pre>
  </div>
  <div class="response" hidden aria-live="polite">
    <h3>Response</h3>
    <p class="response-status"></p>
    <table class="response-headers"><caption>Response headers</caption><thead><tr><th scope="col">Header</th><th scope="col">Value</th></tr></thead><tbody></tbody></table>
    <pre class="response-body" tabindex="0"></pre>
  </div>
</section>`;
}

/** The explorer page. */
export function explorerPage(viewer: Viewer, operations: readonly ExplorerOperation[]): SafeHtml {
  const body = html`<section class="card" aria-labelledby="key-heading">
  <h2 id="key-heading">Your API key</h2>
  <div class="field">
    <label for="explorer-key">API key</label>
    <p class="hint" id="explorer-key-hint">Sent only as the Authorization header of the calls below. A key you just created in this tab is filled in. Calls count toward your quota.</p>
    <input id="explorer-key" type="password" autocomplete="off" spellcheck="false" aria-describedby="explorer-key-hint">
  </div>
  <p class="field-error" id="explorer-error" role="alert" hidden></p>
</section>
${operations.map(operation)}`;
  return layout({ title: "API explorer", current: "explorer", viewer, body, scripts: ["explorer.js"] });
}
