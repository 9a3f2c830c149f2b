/** Markup to plain text: what forum bodies look like after the readers are done with them. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cutAtWord, postEmbeddingText, queryEmbeddingText } from "../../src/enrich/embed-text.js";
import { decodeEntities, htmlToText, markdownToText, singleLine, tidy } from "../../src/ingest/plain-text.js";

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
  assert.equal(
    markdownToText("Before <!-- a note,\nover lines --> after", { html: true }),
    "Before after",
    "HTML comments are not text",
  );
});

test("HTML: block tags become breaks, scripts vanish", () => {
  assert.equal(htmlToText("<p>One &amp; two</p><script>x()</script><p>Three<br>four</p>"), "One & two\n\nThree\nfour");
  assert.equal(htmlToText("<p>One<!-- <p>hidden</p> --></p>"), "One");
});

test("control characters: dropped from titles and bodies, whitespace ones still read as space or break", () => {
  assert.equal(
    singleLine("nul \u0000char, esc \u001b[31mred\u001b[0m, del \u007f, tab\tand\r\nbreak"),
    "nul char, esc [31mred[0m, del , tab and break",
  );
  assert.equal(tidy("a\u0000b\u0008c\n\n\n\u0007\nd\u000ce"), "abc\n\nd e");
  assert.equal(markdownToText("**bold**\u0000 text"), "bold text");
});

test("embedding text: title plus the opening of the content, cut at a word", () => {
  assert.equal(postEmbeddingText({ title: "Need a CRM", content: "" }), "Need a CRM");
  assert.equal(postEmbeddingText({ title: "Need a CRM?", content: "For  my\n\nshop" }), "Need a CRM? For my shop");
  assert.equal(postEmbeddingText({ title: "Need a CRM", content: "For my shop" }), "Need a CRM. For my shop");
  const long = postEmbeddingText({ title: "T", content: "word ".repeat(200) });
  assert.ok(long.length <= 3 + 300 && long.endsWith("word"), long);
  assert.equal(cutAtWord("abcdefghij", 4), "abcd");
  // Only the opening is collapsed; the result is what collapsing the whole body gives, whatever
  // runs of whitespace sit where the opening is cut.
  const whole = (content: string): string => {
    const c = cutAtWord(content.replace(/\s+/g, " ").trim(), 300);
    return c === "" ? "T" : `T. ${c}`;
  };
  const bodies = [
    " \n".repeat(400) + "word ".repeat(100),
    "a".repeat(299) + " ".repeat(2000) + "b".repeat(50),
    "word ".repeat(59) + "abcd" + "\t".repeat(1000) + "tail",
    "x".repeat(301),
    "y ".repeat(150) + " ".repeat(5000),
    "z".repeat(663) + " " + "q".repeat(10),
    Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? "  \n\n " : `w${i}`)).join(""),
  ];
  for (let i = 0; i < 400; i++)
    bodies.push(
      Array.from({ length: 40 + (i % 60) }, (_, k) =>
        (i * 31 + k * 17) % 5 === 0 ? " ".repeat(1 + ((i + k) % 90)) : "ab".repeat(1 + ((i * k) % 9)),
      ).join(""),
    );
  for (const content of bodies)
    assert.equal(postEmbeddingText({ title: "T", content }), whole(content), JSON.stringify(content.slice(0, 80)));
  assert.equal(queryEmbeddingText("  best   crm\nfor shops "), "best crm for shops");
});
