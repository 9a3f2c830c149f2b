/**
 * The hand-written tokenizer must give exactly what the token regex gives: the regex is the
 * readable definition, the scanner the fast one ListTrends runs. Checked on crafted edge cases
 * and on real post text from the sample corpus, plus random strings over a tricky alphabet.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { clipAtToken, isStopword, postText, stripLinks, TOKEN, terms } from "../../src/topics/terms.js";
import { CORPORA, corporaSkip } from "../harness/seed.js";

/** The regex definition of terms(): match TOKEN on the lower-cased text without its links, then the same word rules. */
function regexTerms(text: string): string[] {
  const out: string[] = [];
  const lower = stripLinks(text.toLowerCase());
  const re = new RegExp(TOKEN.source, TOKEN.flags);
  for (let m = re.exec(lower); m !== null; m = re.exec(lower)) {
    let word = m[0];
    if (word.includes("'")) word = word.replace(/'s$/, "").replaceAll("'", "");
    if (word.length < 3 || word.length > 24) continue;
    if (/^[\d.,+-]+$/.test(word)) continue;
    if (isStopword(word)) continue;
    out.push(word);
  }
  return out;
}

/** Whether `a` is `b`'s first a.length items. */
function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length <= b.length && a.every((t, i) => t === b[i]);
}

const ALPHABET = [
  "a",
  "B",
  "z",
  "0",
  "9",
  "'",
  "+",
  "#",
  ".",
  "-",
  " ",
  ",",
  "é",
  "ß",
  "İ",
  "中",
  "🎉",
  "𝐀",
  "\ud800",
  "\udc00",
  "s",
  "'s",
  "\n",
];

/** `count` strings of up to 40 pieces of {@link ALPHABET}, the same every run for a seed, each with the generator's next number in [0, 1). */
function* randomTexts(seed: number, count: number): Generator<{ text: string; next: () => number }> {
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let k = 0; k < count; k++) {
    let text = "";
    const len = Math.floor(next() * 40);
    for (let i = 0; i < len; i++) text += ALPHABET[Math.floor(next() * ALPHABET.length)]!;
    yield { text, next };
  }
}

const CASES = [
  "",
  "Hello, World! C++ and C# are languages; so is F#.",
  "node.js vs. Node.JS... e-mail -- re-use - x- -y 'quoted' don't it's John's Apple's",
  "version 2.0.1, 1,000 users, +44 20 7946 0958, 3.5% growth, 2nd place, 10x faster, 1e6",
  "Ünïcödé wörds: Straße, ÆØÅ, İstanbul, naïve café — em–dash “smart quotes” ’apostrophe’",
  "中文字符 日本語のテキスト 한국어 텍스트 العربية עברית",
  "emoji 🎉🚀 party🎉time 𝒳𝒴𝒵 math letters 𝐀𝐁𝐂 and lone \ud800 surrogate \udc00 here a\ud800b",
  "a'-b a'- a+- a#. '''' ---- .... ++++ #### x+y#z.w'v-u",
  "abcdefghijklmnopqrstuvwxyz0123456789 averyveryveryverylongwordthatexceedslimits",
  'https://www.example.com/path?q=1&x=2 user@example.org <a href="x">link</a> &amp; &gt;',
];

describe("terms", () => {
  it("drops contractions in the apostrophe-less form it gives them, and keeps the words around them", () => {
    assert.deepEqual(terms("I don't think it's broken, but you'll see: they're shipping Rust and it wasn't slow"), [
      "broken",
      "shipping",
      "rust",
      "slow",
    ]);
  });

  it("leaves links out, and keeps a domain written without a scheme", () => {
    assert.deepEqual(
      terms(
        "My first $20 with Alibaba: http://eugenehennie.com/my-first-20-with-alibaba/ (see [the post](https://Example.org/a-b?c=d) or www.foo-bar.io/x). Shopify.com works",
      ),
      ["first", "alibaba", "post", "shopify.com", "works"],
    );
    assert.deepEqual(terms('<a href="http://x.io/deep-link">pricing</a>'), ["href", "pricing"]);
  });

  it("equals the token regex on edge cases", () => {
    for (const text of CASES) assert.deepEqual(terms(text), regexTerms(text), JSON.stringify(text));
  });

  it("equals the token regex on random strings over a tricky alphabet", () => {
    for (const { text } of randomTexts(12345, 3000))
      assert.deepEqual(terms(text), regexTerms(text), JSON.stringify(text));
  });

  it("equals the token regex on real post text", { skip: corporaSkip() }, () => {
    // Raw CSV lines: titles, bodies, urls and markup as the corpora hold them (~2 MB of each).
    for (const file of ["hackernews_2015_2016/hacker_news.csv", "reddit_top2013/raw_csv/startups.csv"]) {
      const text = readFileSync(path.join(CORPORA, file), "utf8").slice(0, 2_000_000);
      const lines = text.split("\n");
      assert.ok(lines.length > 1000, `${file} has text`);
      for (let i = 0; i < lines.length; i += 200) {
        const chunk = lines.slice(i, i + 200).join("\n");
        assert.deepEqual(terms(chunk), regexTerms(chunk));
      }
    }
  });

  it("clips a body before the token a cut would split, so no fragment becomes a term", () => {
    assert.equal(clipAtToken("the new platform would", 15), "the new ");
    assert.equal(clipAtToken("the new platform would", 19), "the new platform ");
    assert.equal(clipAtToken("the new platform would", 16), "the new platform");
    assert.equal(clipAtToken("the new platform would", 17), "the new platform ");
    assert.equal(clipAtToken("see node.js docs", 9), "see ");
    assert.equal(clipAtToken("short", 100), "short");
    assert.equal(clipAtToken("𝐀𝐁𝐂 x", 3), "");
    assert.deepEqual(terms(postText("Launch", "In the hope that the new platform would", 30)), [
      "launch",
      "launch",
      "hope",
    ]);
    for (const { text, next } of randomTexts(777, 3000)) {
      const max = Math.floor(next() * (text.length + 1));
      const clipped = clipAtToken(text, max);
      assert.ok(text.startsWith(clipped) && clipped.length <= max, JSON.stringify([text, max]));
      assert.ok(isPrefix(terms(clipped), terms(text)), JSON.stringify([text, max]));
      // Only the split token's run goes: never a separator before it.
      assert.ok(!/[ ,\n]|\ud83c/.test(text.slice(clipped.length, max)), JSON.stringify([text, max]));
    }
  });

  it("gives only terms the whole body has when real bodies are cut", { skip: corporaSkip() }, () => {
    const lines = readFileSync(path.join(CORPORA, "hackernews_2015_2016/hacker_news.csv"), "utf8")
      .slice(0, 1_000_000)
      .split("\n");
    let cutInsideWord = 0;
    for (const line of lines) {
      if (line.length < 120) continue;
      const whole = new Set(terms(line));
      for (const max of [37, 61, 100]) {
        if (/[\p{L}\p{N}]/u.test(line[max - 1]!) && /[\p{L}\p{N}]/u.test(line[max]!)) cutInsideWord++;
        for (const t of terms(postText("", line, max)))
          assert.ok(whole.has(t), `"${t}" from ${JSON.stringify(line.slice(0, max + 10))}`);
      }
    }
    assert.ok(cutInsideWord > 500, `the sample cuts inside words (${cutInsideWord})`);
  });
});
