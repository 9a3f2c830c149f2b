/**
 * Reads a themed ai_summary back and checks every figure and quote in it against the results it
 * was written from: the matched count, the themes' posts, their time spans and sentiment mixes,
 * the label's words and each quote's text and citation. Shared by the unit and SearchCore tests.
 */
import assert from "node:assert/strict";
import type { SummaryInput } from "../../src/core/summary/summarizer.js";
import { cleanText } from "../../src/core/summary/text-units.js";
import { monthOf } from "../../src/core/summary/themed-summary.js";

const OPENING =
  /^(At least )?(\d+) posts? matched "(.*?)"(?: with relevance (\d\.\d\d) or more)?(?:\.|, in (two|three) themes\.|; this page holds (\d+) of them\.|; the (\d+) on this page fall into (two|three) themes\.)/;
const THEME =
  / (?:On ([^,]+), )?(\d+) posts? \(([\d, and]+)\)(?: in ([A-Z][a-z]{2} \d{4})| from ([A-Z][a-z]{2} \d{4}) to ([A-Z][a-z]{2} \d{4}))?(?:, ([a-z\d, ]+))?(?::( one is titled)? "([^"]*)" \[(\d+)\])?\./g;
const WORDS: Record<string, number> = { two: 2, three: 3 };

/** What the summary was told beyond the page. */
export interface Expected {
  /** Posts matched among all candidates, as the caller counted them. */
  matched: number;
  atLeast?: boolean;
  /** The floor, or undefined when the results carry no relevance. */
  floor: number | undefined;
}

/** A parsed theme sentence. */
export interface ParsedTheme {
  label: string;
  members: number[];
  quote: string;
  cited: number;
}

/** Checks `summary` against `results`; returns the parsed themes for further checks. */
export function checkThemedSummary(
  summary: string,
  results: readonly SummaryInput[],
  expected: Expected,
): ParsedTheme[] {
  const open = OPENING.exec(summary);
  assert.ok(open, `opening sentence not as expected: ${summary}`);
  assert.equal(open[1] !== undefined, expected.atLeast === true, "'at least' when and only when the count is a bound");
  assert.equal(Number(open[2]), expected.matched, "the matched count is the caller's count, not the page size");
  if (expected.floor === undefined) assert.equal(open[4], undefined);
  else assert.equal(open[4], expected.floor.toFixed(2));
  const matchedHere = results.flatMap((r, i) =>
    expected.floor === undefined || (r.relevance ?? 0) >= expected.floor ? [i + 1] : [],
  );
  const onPage = open[6] ?? open[7];
  if (onPage !== undefined) assert.equal(Number(onPage), matchedHere.length);
  const rest = summary.slice(open[0].length);
  const themes = [...rest.matchAll(THEME)];
  assert.equal(themes.map((m) => m[0]).join(""), rest, `every sentence after the opening is a theme sentence: ${rest}`);
  const said = open[5] ?? open[8];
  assert.equal(themes.length, said === undefined ? 1 : WORDS[said], "as many theme sentences as themes said");
  const parsed = themes.map((m) => {
    const members = m[3]!.split(/, | and /).map(Number);
    const label = m[1] ?? "";
    assert.equal(Number(m[2]), members.length, "a theme's count is its posts listed");
    const posts = members.map((n) => results[n - 1]!);
    const created = posts.map((p) => p.created ?? 0).filter((t) => t > 0);
    if (created.length > 0) {
      const first = monthOf(Math.min(...created));
      const last = monthOf(Math.max(...created));
      if (first === last) assert.equal(m[4], first);
      else assert.deepEqual([m[5], m[6]], [first, last]);
    }
    if (posts.every((p) => p.sentiment !== undefined)) {
      const counts = new Map<string, number>();
      for (const p of posts) counts.set(p.sentiment!, (counts.get(p.sentiment!) ?? 0) + 1);
      const said = new Map(
        m[7]!.split(/, | and /).map((part) => {
          const [n, l] = part.split(" ");
          return [l!, Number(n)] as const;
        }),
      );
      assert.deepEqual(said, counts, "the sentiment mix counts the theme's posts");
    }
    const text = posts.map((p) => `${p.title} ${p.content}`.toLowerCase()).join(" ");
    for (const w of label.split(/ and | /)) assert.ok(text.includes(w), `label word "${w}" is in the theme's posts`);
    if (m[10] === undefined) return { label, members, quote: "", cited: 0 };
    const cited = Number(m[10]);
    assert.ok(members.includes(cited), "the quote comes from one of the theme's posts");
    const source = results[cited - 1]!;
    const quote = m[9]!;
    const norm = (s: string) => cleanText(s).replace(/["“”]/g, "'");
    if (m[8] !== undefined) assert.equal(quote, norm(source.title).replace(/[.!]+$/, ""), "a title quoted whole");
    else assert.ok(norm(source.content).includes(quote), `quote "${quote}" is in post ${cited}'s body`);
    return { label, members, quote, cited };
  });
  const all = parsed.flatMap((t) => t.members).sort((a, b) => a - b);
  assert.deepEqual(all, matchedHere, "the themes hold exactly the page's matched posts, each once");
  return parsed;
}
