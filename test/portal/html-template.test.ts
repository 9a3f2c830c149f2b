/** The portal's HTML template: every interpolation escaped, in text and in quoted attributes. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeHtml, html } from "../../src/portal/web/html.js";

test("text and attribute interpolations are escaped", () => {
  const evil = `"><img src=x onerror=alert(1)> <script>alert('x')</script> \`=&`;
  const out = html`<p title="${evil}">${evil}</p>`.value;
  assert.ok(!out.includes("<img"), out);
  assert.ok(!out.includes("<script"), out);
  assert.equal(out, `<p title="${escapeHtml(evil)}">${escapeHtml(evil)}</p>`);
  assert.equal(escapeHtml(`<>&"'\`=`), "&lt;&gt;&amp;&quot;&#39;&#96;&#61;");
  // Single-quoted attributes are safe too.
  assert.ok(!html`<a title='${"' onmouseover='x"}'>`.value.includes("' onmouseover"));
});

test("nested templates are not escaped twice; arrays join; null, undefined and false vanish", () => {
  const inner = html`<b>${"a&b"}</b>`;
  assert.equal(html`<p>${inner}</p>`.value, "<p><b>a&amp;b</b></p>");
  assert.equal(html`<ul>${["<1>", html`<li>2</li>`]}</ul>`.value, "<ul>&lt;1&gt;<li>2</li></ul>");
  assert.equal(html`${null}${undefined}${false}${0}`.value, "0");
});

test("a plain object that looks like SafeHtml is still escaped", () => {
  const fake = { value: "<script>", toString: () => "<script>" };
  assert.equal(html`${fake}`.value, "&lt;script&gt;");
});
