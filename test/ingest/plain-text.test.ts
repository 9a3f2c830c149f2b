/** Markup to plain text: what forum bodies look like after the readers are done with them. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEntities, htmlToText, markdownToText } from "../../src/ingest/plain-text.js";
import { cutAtWord, postEmbeddingText, queryEmbeddingText } from "../../src/enrich/embed-text.js";

test("entities: named, numeric, repeated escaping, unknown left alone", () => {
  assert.equal(decodeEntities("AT&amp;T &lt;3 &#39;x&#x27; &hellip; &bogus;"), "AT&T <3 'x' … &bogus;");
  assert.equal(decodeEntities("Ernst &amp;amp; Young"), "Ernst &amp; Young");
  assert.equal(decodeEntities("Ernst &amp;amp;amp; Young", 3), "Ernst & Young");
  assert.equal(decodeEntities("&#0; &#xD800;"), "&#0; &#xD800;");
});

test("markdown: links, images, emphasis, headings, quotes, lists, code, escapes", () => {
  const md = [
    "# Title",
    "",
    "Check [my site](http://a.example/x_(y)) and ![logo](http://i.example/l.png).",
    "> quoted **bold** and *italic* and _under_ and ~~gone~~",
    "",
    "1. first",
    "- second",
    "",
    "```js",
    "const a_b = 1;",
    "```",
    "Use `npm i` \\*not\\* snake_case_names.",
    "",
    "---",
    "[1]: http://ref.example",
  ].join("\n");
  assert.equal(
    markdownToText(md),
    "Title\n\nCheck my site and logo.\nquoted bold and italic and under and gone\n\nfirst\nsecond\n\nconst a_b = 1;\n\nUse npm i *not* snake_case_names.",
  );
  assert.equal(markdownToText("a &lt;b&gt; tag", {}), "a <b> tag", "escaped HTML stays as text");
  assert.equal(markdownToText("<p>Hi <a href='x'>there</a></p><p>Bye</p>", { html: true }), "Hi there\n\nBye");
});

test("HTML: block tags become breaks, scripts vanish", () => {
  assert.equal(htmlToText("<p>One &amp; two</p><script>x()</script><p>Three<br>four</p>"), "One & two\n\nThree\nfour");
});

test("embedding text: title plus the opening of the content, cut at a word", () => {
  assert.equal(postEmbeddingText({ title: "Need a CRM", content: "" }), "Need a CRM");
  assert.equal(postEmbeddingText({ title: "Need a CRM?", content: "For  my\n\nshop" }), "Need a CRM? For my shop");
  assert.equal(postEmbeddingText({ title: "Need a CRM", content: "For my shop" }), "Need a CRM. For my shop");
  const long = postEmbeddingText({ title: "T", content: "word ".repeat(200) });
  assert.ok(long.length <= 3 + 300 && long.endsWith("word"), long);
  assert.equal(cutAtWord("abcdefghij", 4), "abcd");
  assert.equal(queryEmbeddingText("  best   crm\nfor shops "), "best crm for shops");
});
