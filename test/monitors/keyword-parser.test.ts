/**
 * The keyword grammar: what each construct parses to, how it matches posts, the column every
 * syntax error points at, and that the index finds exactly what a scan over all monitors finds.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KeywordIndex } from "../../src/monitors/keyword-index.js";
import { keywordSubject, matchedTerms, matchesKeywords } from "../../src/monitors/keyword-match.js";
import { KeywordSyntaxError, parseKeywords } from "../../src/monitors/keyword-parser.js";

const post = (title: string, content = "", extra: Partial<{ subforum: string; author: string; source: string }> = {}) =>
  keywordSubject({
    title,
    content,
    subforum: extra.subforum ?? "SaaS",
    author: extra.author ?? "jane",
    source: extra.source ?? "reddit",
  });

function matches(expr: string, s: ReturnType<typeof post>): boolean {
  return matchesKeywords(parseKeywords(expr), s);
}

function syntaxError(expr: string): KeywordSyntaxError {
  try {
    parseKeywords(expr);
  } catch (err) {
    assert.ok(err instanceof KeywordSyntaxError, String(err));
    return err;
  }
  assert.fail(`${expr} parsed`);
}

describe("keyword grammar", () => {
  test("precedence: NOT binds tighter than AND, AND tighter than OR; adjacency is AND", () => {
    assert.deepEqual(parseKeywords("a b OR c"), {
      type: "or",
      children: [
        {
          type: "and",
          children: [
            { type: "term", scope: "text", words: ["a"], prefix: false },
            { type: "term", scope: "text", words: ["b"], prefix: false },
          ],
        },
        { type: "term", scope: "text", words: ["c"], prefix: false },
      ],
    });
    assert.deepEqual(parseKeywords("NOT a AND b"), {
      type: "and",
      children: [
        { type: "not", child: { type: "term", scope: "text", words: ["a"], prefix: false } },
        { type: "term", scope: "text", words: ["b"], prefix: false },
      ],
    });
    assert.deepEqual(parseKeywords('title:"Hello World" subforum:Rust -author:bot'), {
      type: "and",
      children: [
        { type: "term", scope: "title", words: ["hello", "world"], prefix: false },
        { type: "field", field: "subforum", value: "rust" },
        { type: "not", child: { type: "field", field: "author", value: "bot" } },
      ],
    });
  });

  test("phrases match words in order; words match whole words, case-insensitively", () => {
    const s = post("Looking for an alternative to Notion", "We need a wiki. Any CRM-tools?");
    assert.equal(matches('"alternative to notion"', s), true);
    assert.equal(matches('"notion alternative"', s), false);
    assert.equal(matches("NOTION", s), true);
    assert.equal(matches("not", s), false, "'not' is a word, and 'Notion' does not contain it as a word");
    assert.equal(matches("wiki", s), true, "trailing punctuation is not part of the word");
    assert.equal(matches("crm-tools", s), true);
    assert.equal(matches("alternat*", s), true);
    assert.equal(matches("alternate*", s), false);
  });

  test("AND / OR / NOT / parentheses / fields", () => {
    const s = post("Slack vs Discord for a team", "pricing is too high", {
      subforum: "startups",
      author: "Bob",
      source: "hackernews",
    });
    assert.equal(matches("(slack OR teams) AND pricing", s), true);
    assert.equal(matches("(zoom OR teams) AND pricing", s), false);
    assert.equal(matches("slack NOT discord", s), false);
    assert.equal(matches("slack -zoom", s), true);
    assert.equal(matches("subforum:startups slack", s), true);
    assert.equal(matches("subforum:StartUps", s), true);
    assert.equal(matches("subforum:saas slack", s), false);
    assert.equal(matches("author:bob source:hackernews pricing", s), true);
    assert.equal(matches("title:pricing", s), false, "title: looks at the title only");
    assert.equal(matches("title:discord", s), true);
    assert.equal(matches("or", s), false, "lower-case or is a word to find, not an operator");
    assert.deepEqual(matchedTerms(parseKeywords('slack OR "too high" OR zoom subforum:startups'), s), [
      "slack",
      '"too high"',
      "subforum:startups",
    ]);
  });

  test("errors name the problem and its column", () => {
    const cases: [string, number, RegExp][] = [
      ["", 1, /the expression is empty/],
      ['slack "team chat', 7, /unterminated quote/],
      ["(slack OR teams", 1, /missing "\)" for the "\(" here/],
      ["slack)", 6, /unexpected "\)" without a matching "\("/],
      ["slack AND", 10, /expected a term, found end of expression/],
      ["slack OR OR teams", 10, /expected a term before OR/],
      ["NOT", 4, /expected a term after NOT, found end of expression/],
      ["slack NOT )", 11, /expected a term after NOT/],
      ["foo:bar slack", 1, /unknown field "foo:"; use subforum:, author:, source:, title:/],
      ["slack subforum:", 16, /expected a value after "subforum:"/],
      ["slack ()", 8, /empty parentheses/],
      ['slack ""', 7, /empty phrase/],
      ["NOT spam", 1, /at least one term that is not negated/],
      ["slack OR -spam", 1, /at least one term that is not negated/],
      ["author:bo* x", 8, /takes an exact value/],
    ];
    for (const [expr, column, message] of cases) {
      const err = syntaxError(expr);
      assert.equal(err.column, column, `${expr}: ${err.message}`);
      assert.match(err.message, message, expr);
      assert.match(err.message, new RegExp(`at column ${column}$`));
    }
    assert.equal(syntaxError("(".repeat(40) + "a" + ")".repeat(40)).detail, "nesting deeper than 32 levels");
    assert.match(syntaxError("a ".repeat(600)).message, /longer than 1000 characters/);
  });

  test("the index finds exactly what evaluating every monitor finds", () => {
    const exprs = [
      "slack",
      '"too high"',
      "slack -discord",
      "(zoom OR teams) pricing",
      "subforum:startups",
      "title:slack",
      "alt*",
      "author:bob OR zoom",
      "slack OR NOT discord x",
      "hello world",
      "a*",
      "source:hackernews NOT pricing",
      '"pricing is"',
    ];
    const index = new KeywordIndex();
    exprs.forEach((e, i) => index.add(String(i), parseKeywords(e)));
    const posts = [
      post("Slack vs Discord for a team", "pricing is too high", {
        subforum: "startups",
        author: "Bob",
        source: "hackernews",
      }),
      post("Hello world", "alternatives to zoom with fair pricing"),
      post("x", "a b c"),
      post("Teams", "pricing"),
      post("nothing", "", { author: "bob" }),
    ];
    for (const s of posts) {
      const scanned = exprs.flatMap((e, i) => (matches(e, s) ? [String(i)] : []));
      assert.deepEqual(index.match(s).sort(), scanned.sort());
    }
  });
});
