/**
 * The lead rules skip a pattern when its literals are absent from the text (literals.ts). That is
 * only safe if it never skips a text the pattern matches: checked here for every prefiltered
 * pattern (intent cues, industry words, products and categories) on texts written to sit at the
 * edges of the literal reading (case, optional parts, repeats, unicode) and on real posts and
 * their sentences. Both layers are checked: the literals themselves (`includes` on the
 * lower-cased text) and the trigram table the classifier consults.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { WORD_RULES } from "../../src/enrich/leads/industry.js";
import { compileLiterals, requiredLiterals, Trigrams } from "../../src/enrich/leads/literals.js";
import { TARGET_PATTERNS } from "../../src/enrich/leads/product.js";
import { CUES } from "../../src/enrich/leads/signals.js";
import { sentencesOf } from "../../src/enrich/leads/text.js";
import { CORPORA, corporaSkip } from "../harness/seed.js";

/** Every prefiltered pattern, without the global flag (so `test` keeps no state). */
const PATTERNS: readonly RegExp[] = [
  ...Object.values(CUES).flatMap((cues) => cues.map((c) => c.re)),
  ...WORD_RULES.map((r) => r.re),
  ...TARGET_PATTERNS,
].map((re) => new RegExp(re.source, re.flags.replace("g", "")));

/** Texts that match but whose literals or trigrams say "absent": must stay empty. */
function missed(texts: readonly string[]): string[] {
  const out: string[] = [];
  const compiled = PATTERNS.map((re) => ({ re, literals: requiredLiterals(re), grams: compileLiterals(re) }));
  for (const text of texts) {
    const lower = text.toLowerCase();
    const grams = new Trigrams(text);
    for (const { re, literals, grams: hashes } of compiled) {
      if (!re.test(text)) continue;
      const clause = literals.find((c) => !c.some((l) => lower.includes(l)));
      if (clause)
        out.push(
          `/${re.source.slice(0, 60)}/ matches ${JSON.stringify(text.slice(0, 80))} without any of ${JSON.stringify(clause)}`,
        );
      else if (!grams.mayMatch(hashes))
        out.push(
          `/${re.source.slice(0, 60)}/ matches ${JSON.stringify(text.slice(0, 80))} but its trigrams are absent`,
        );
    }
  }
  return out;
}

/** Written to reach the edges: capitals, optional and repeated parts, marks, tabs, non-ASCII. */
const EDGES = [
  "WTB: a used MacBook",
  "Shopify VS. WooCommerce?",
  "Shopify vs Magento",
  "x versus y?",
  "Is there a CRM for plumbers",
  "I'm looking to buy a truck. We are planning to PURCHASE software",
  "im going to pre-order it",
  "budget ~$500 for this",
  "$5k budget",
  "Any GOOD Suggestions for e-commerce platforms?",
  "ecommerce site, e-commerce platform, online store",
  "Constant   Contact or Campaign\tMonitor or Google\nAnalytics",
  "Hyper-V vs ESXi, Authorize.net, 99designs, Office 365",
  "İ need help İstanbul ſhopify Kelvin \u212a",
  "#fail #EpicFail again",
  "doesnt work, doesn't WORK, can't log in, cant login",
  "It'd be NICE if, wouldn't it be great",
  "suggestion: add dark mode",
  "Idea- dark mode",
  "please add a way, pls fix, plz",
  "a search bar would really help everyone",
  "Being able to export would be a huge improvement",
  "help",
  "How to?",
  "why not?",
  "should we?",
  "keeps on crashing, keep freezing",
  "too expensive, overcharged, charged twice, hidden fees",
  "it's important to, it would be necessary that",
  "We hope you will, I hope that",
  "I'd really love to see, would love a way",
  "Email marketing tool, newsletter software",
  "POS system, point of sale",
  "rank tracking, track my keyword positions, monitor serp",
  "e-mail, wi-fi, anti-virus, add-on, to-do app, web site",
  "the vps and dedicated server",
  "401k and IRA and student loans",
  "fulfilment and fulfillment",
  "Hiring? HR, recruiters",
  "dropshipping FBA amazon seller",
  // Characters beyond ASCII, some of which lower-case to ASCII (KELVIN SIGN -> k, İ -> i + dot).
  "\u212Alate again, İlost it, \u212Ahate, ßbug, éerror",
  "budget is £500, budget of €20",
  "x\nmake a way\r\nbuy a car\u2028get a job",
  "_late_ late_ 9lost lost9",
];

describe("lead rule prefilters", () => {
  it("reads a pattern's literals: required runs, each branch, nothing optional", () => {
    assert.deepEqual(requiredLiterals(/\bpros and cons\b/i), [["pros and cons"]]);
    assert.deepEqual(requiredLiterals(/\b(?:wtb|want to buy)\b/i), [["wtb", "want to buy"]]);
    assert.deepEqual(requiredLiterals(/\b(?:willing|happy) to (?:pay|spend)\b/i), [
      ["willing", "happy"],
      [" to "],
      ["pay", "spend"],
    ]);
    // Optional parts and lookarounds contribute nothing; a repeat ends a run; the three most
    // narrowing clauses are kept; a clause with a character beyond ASCII is dropped.
    assert.deepEqual(requiredLiterals(/(?<!x)ab?cd+ef/), [["ef"], ["a"], ["c"]]);
    assert.deepEqual(requiredLiterals(/\w+|foo/), []);
    assert.deepEqual(requiredLiterals(/caf(?:é|e) bar/i), [[" bar"], ["caf"]]);
    assert.deepEqual(requiredLiterals(/fo{0,2}bar/), [["bar"], ["f"]]);
    assert.throws(() => requiredLiterals(/(?<name>x)/), /unsupported group/);
  });

  it("never rules out a text written to sit at a pattern's edge", () => {
    assert.deepEqual(missed([...EDGES, ...EDGES.map((t) => t.toUpperCase())]), []);
  });

  it("never rules out a real post or sentence a pattern matches", { skip: corporaSkip() }, () => {
    const posts: string[] = [];
    for (const line of readFileSync(`${CORPORA}/stackexchange_startups/startups_se_questions.jsonl`, "utf8")
      .split("\n")
      .slice(0, 400)) {
      if (line === "") continue;
      const q = JSON.parse(line) as { title?: string; body?: string };
      posts.push(`${q.title ?? ""}\n${q.body ?? ""}`);
    }
    for (const file of [
      "reddit_top2013/raw_csv/smallbusiness.csv",
      "reddit_top2013/raw_csv/startups.csv",
      "hackernews_2015_2016/hacker_news.csv",
    ]) {
      // Raw CSV lines are text enough: the property holds for any string.
      posts.push(...readFileSync(`${CORPORA}/${file}`, "utf8").split("\n").slice(1, 400));
    }
    const texts = posts.flatMap((p) => {
      const [title = "", ...body] = p.split("\n");
      return [p.slice(0, 3000), ...sentencesOf({ title, content: body.join("\n") }).map((s) => s.text)];
    });
    assert.ok(texts.length > 5000, `only ${texts.length} texts`);
    assert.deepEqual(missed(texts), []);
  });
});
