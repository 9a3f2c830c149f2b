/**
 * shorten() folds and counts a post in one pass that stops once the snippet is decided; these
 * tests pin that it answers exactly as folding the whole text would: the reference below is the
 * plain definition (fold every whitespace run with /\s+/, trim, split into code points, cut),
 * compared on generated texts that put every kind of JavaScript whitespace (and characters that
 * only look like it), surrogate pairs and lone surrogates around the limit.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SNIPPET_MAX_CHARS, shorten } from "../../src/core/snippet.js";
import { seededRandom } from "../../src/topics/random.js";

function reference(text: string, max: number = SNIPPET_MAX_CHARS): string {
  const clean = text.replace(/\s+/g, " ").trim();
  const chars = [...clean];
  if (chars.length <= max) return clean;
  const head = chars.slice(0, max - 1).join("");
  const lastSpace = head.lastIndexOf(" ");
  const cut = lastSpace >= max * 0.6 ? head.slice(0, lastSpace) : head;
  return `${cut.replace(/[\s,;:.!?-]+$/, "")}…`;
}

const PIECES = [
  "word",
  "a",
  "longerword",
  "x".repeat(40),
  ",",
  ".",
  "!",
  "-",
  ";",
  " ",
  "  ",
  "\n",
  "\t",
  "\r\n",
  " \n \t ",
  "\v",
  "\f",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2005",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
  // Not whitespace to JavaScript, though they look like it.
  "\u0085",
  "\u180e",
  "\u200b",
  "\u200d",
  "\u2060",
  "😀",
  "日本語",
  "é",
  "\ud83d",
  "\ude00",
  "\ud83d\ude00\ud83d",
];

function randomText(rand: () => number, pieces: number): string {
  let s = "";
  for (let i = 0; i < pieces; i++) s += PIECES[Math.floor(rand() * PIECES.length)]!;
  return s;
}

test("matches folding the whole text, for generated texts and limits", () => {
  const rand = seededRandom(20261122);
  for (let i = 0; i < 3000; i++) {
    const max = i % 3 === 0 ? SNIPPET_MAX_CHARS : 1 + Math.floor(rand() * 60);
    const text = randomText(rand, Math.floor(rand() * (i % 5 === 0 ? 2000 : 120)));
    assert.equal(
      shorten(text, max),
      reference(text, max),
      `case ${i}, max ${max}: ${JSON.stringify(text.slice(0, 200))}`,
    );
  }
});

test("long whitespace runs before and between the words fold as in the whole text", () => {
  const text = `${" \n\t".repeat(5000)}${Array.from({ length: 400 }, (_, i) => `w${i}`).join("\u00a0\u00a0")}`;
  assert.equal(shorten(text), reference(text));
  assert.equal(shorten(text, 10), reference(text, 10));
});

test("boundaries at the limit: exactly max, max + 1, and a pair or a space run at the head's end", () => {
  for (const max of [1, 2, 3, 10, SNIPPET_MAX_CHARS]) {
    for (const extra of [-1, 0, 1, 2, 3]) {
      const n = max + extra;
      if (n < 0) continue;
      for (const unit of ["a", "😀", " ", "a ", "\ud83d"]) {
        for (const tail of ["", "end", "😀"]) {
          // A whitespace run right after the limit: folded, it is one more code point or none.
          const text = unit.repeat(n) + " ".repeat(5000) + tail;
          assert.equal(
            shorten(text, max),
            reference(text, max),
            `max ${max}, n ${n}, unit ${JSON.stringify(unit)}, tail ${JSON.stringify(tail)}`,
          );
        }
        const bare = unit.repeat(n);
        assert.equal(
          shorten(bare, max),
          reference(bare, max),
          `bare: max ${max}, n ${n}, unit ${JSON.stringify(unit)}`,
        );
      }
    }
  }
});

test("limits the head does not cover keep the plain definition", () => {
  for (const max of [0, -3, 2.5, 7.9]) {
    const text = "one two three four five six seven eight nine ten";
    assert.equal(shorten(text, max), reference(text, max), `max ${max}`);
  }
});

test("every UTF-16 unit is whitespace to shorten exactly when it is to /\\s/", () => {
  for (let c = 0; c <= 0xffff; c++) {
    const ch = String.fromCharCode(c);
    const text = `${ch}a${ch}${ch}b${ch}`;
    assert.equal(shorten(text, 3), reference(text, 3), `U+${c.toString(16).padStart(4, "0")}`);
    assert.equal(shorten(text), reference(text), `U+${c.toString(16).padStart(4, "0")}`);
  }
});
