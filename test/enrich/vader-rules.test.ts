/**
 * vader-rules.ts against the npm `vader-sentiment` port it replaces at ingest: the same four
 * rounded scores for every lexicon entry (alone, negated, in capitals, boosted, after "but"),
 * for texts written to reach each rule (idioms, "never so", "at least", "kind of", marks around
 * words, emphasis), and for real posts and their sentences (read from ../shared/data).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import type { VaderScores } from "../../src/enrich/sentiment/vader-rules.js";
import { vaderPolarity, vaderTokens } from "../../src/enrich/sentiment/vader-rules.js";
import { CORPORA, corporaSkip } from "../harness/seed.js";

interface PortModule {
  SentimentIntensityAnalyzer: { polarity_scores(text: string): VaderScores };
}
const port = createRequire(import.meta.url)("vader-sentiment") as PortModule;

/** Texts where the two disagree, with both answers (empty when they agree on all). */
function disagreements(texts: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of texts) {
    const want = port.SentimentIntensityAnalyzer.polarity_scores(t);
    const got = vaderPolarity(t);
    if (JSON.stringify(want) !== JSON.stringify(got))
      out.push(`${JSON.stringify(t.slice(0, 120))}: port ${JSON.stringify(want)}, here ${JSON.stringify(got)}`);
  }
  return out;
}

const CRAFTED = [
  "",
  " ",
  "a",
  "I love it, it is great!",
  "This is the shit, yeah right it is the bomb",
  "that cut the mustard and the kiss of death, living hand to mouth",
  "bad ass stuff, never so good, never this bad, not so bad, never really good",
  "at least good, very least bad, least good, the least happy man",
  "it is kind of good and sort of bad, just enough nice, kinda great",
  "Kind Of GOOD but REALLY BAD",
  "good BUT bad",
  "good but bad but great",
  "BUT good",
  "GREAT GREAT GREAT",
  "I am VERY happy and very sad",
  "EXTREMELY bad but NOT good",
  "'good' \"bad\" good!!! bad??? ?!?good !?!?great -nice- ;happy: ..sad.. !!!!good good!!!!",
  "don't like it, doesn't help, isn't good, ain't nothing nice, can't win, couldn't care less",
  "wasn't bad. wouldn't hate it. uh-uh, not good. Nope, good? no good",
  "Why?? Why??? WHY???? great!!!!! great!",
  ":) :( :-) ;) <3 :D xD lol LOL lmao ok OK",
  "good\tbad\nnice\u00a0happy\u2003sad",
  "café délicieux, naïve good, emoji 😀 good 😡 bad",
  "'good' !!bad ok?! good, (nice) don't. a b",
  "good-bad good/bad good.bad (good) [bad] {nice} good's bad's",
  "the SHIT is not the shit",
  "hardly good, barely bad, slightly nice, somewhat happy, almost great",
  "so so good, this this bad, never never good",
];

describe("VADER rules", () => {
  it("strips one edge mark from a token only when the rest is a plain word of the text", () => {
    // Marks on both sides, a pair the port does not list ("?!") and brackets stay; so does a
    // contraction's apostrophe, which keeps "don't" from being a plain word.
    assert.deepEqual(vaderTokens("'good' !!bad ok?! good, (nice) don't. a b"), [
      "'good'",
      "bad",
      "ok?!",
      "good",
      "(nice)",
      "don't.",
    ]);
  });

  it("scores every lexicon entry as the npm port does, alone and in context", () => {
    const file = createRequire(import.meta.url).resolve("vader-sentiment/vader_lexicon.txt");
    const words = readFileSync(file, "utf8")
      .split("\n")
      .map((l) => l.split("\t")[0]!)
      .filter((w) => w !== "");
    assert.ok(words.length > 7000, `lexicon has ${words.length} entries`);
    const texts = words.flatMap((w) => [
      w,
      `not ${w}`,
      `${w.toUpperCase()} it is`,
      `it is really ${w}, but never so ${w}!`,
      `kind of ${w}`,
    ]);
    assert.deepEqual(disagreements(texts), []);
  });

  it("scores texts written to reach each rule as the npm port does", () => {
    assert.deepEqual(disagreements(CRAFTED), []);
  });

  it("scores real posts and their sentences as the npm port does", { skip: corporaSkip() }, () => {
    const posts: string[] = [];
    for (const line of readFileSync(`${CORPORA}/stackexchange_startups/startups_se_questions.jsonl`, "utf8")
      .split("\n")
      .slice(0, 600)) {
      if (line === "") continue;
      const q = JSON.parse(line) as { title?: string; body?: string };
      posts.push(`${q.title ?? ""}\n${q.body ?? ""}`);
    }
    posts.push(...readFileSync(`${CORPORA}/hackernews_2015_2016/hacker_news.csv`, "utf8").split("\n").slice(1, 600));
    const texts = posts.flatMap((p) => [p.slice(0, 300), p.slice(0, 1500), ...p.slice(0, 600).split(/(?<=[.!?])\s+/)]);
    assert.deepEqual(disagreements(texts), []);
  });
});
