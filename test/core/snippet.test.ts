import assert from "node:assert/strict";
import { test } from "node:test";
import { SNIPPET_MAX_CHARS, shorten } from "../../src/core/snippet.js";

test("short text is kept (whitespace folded)", () => {
  assert.equal(shorten("a  b\n\nc"), "a b c");
});

test("long text is cut at a word boundary with an ellipsis, within the limit", () => {
  const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");
  const out = shorten(words);
  assert.ok([...out].length <= SNIPPET_MAX_CHARS, String(out.length));
  assert.ok(out.endsWith("…"));
  assert.match(out.slice(0, -1), /word\d+$/, "the last word is whole");
  assert.ok(words.startsWith(out.slice(0, -1)));
});

test("emoji are never split", () => {
  const out = shorten("😀".repeat(600), 10);
  assert.equal([...out].length, 10);
  assert.doesNotMatch(out, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
});
