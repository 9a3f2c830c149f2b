/**
 * The material of the themed ai_summary, computed from the results alone: which results matched
 * (relevance at or above the floor), their themes (clusters of their vectors), and for each theme
 * its label, members, time span, sentiment mix and one quoted sentence. The extractive summary
 * renders it as text and the LLM summary is given it; every figure in either can be recomputed
 * from the results, which the tests do.
 */
import type { SentimentLabel } from "../../model/post.js";
import { querySubject } from "../query-subject.js";
import { MATCH_FLOOR } from "./match-floor.js";
import type { SummaryContext, SummaryInput } from "./summarizer.js";
import { sentences, terms } from "./text-units.js";
import { centroid, cosine, themeGroups } from "./theme-clusters.js";
import { themeLabels } from "./theme-label.js";

/** One theme: members and quote are 0-based result positions. */
export interface Theme {
  label: string;
  members: number[];
  /** Earliest and latest creation time of the members that have one (epoch ms), if any. */
  span?: { first: number; last: number };
  /** Members per sentiment label, when the members carry labels. */
  sentiment?: Record<SentimentLabel, number>;
  /** The quoted sentence, absent when no post of the theme names a query term. */
  quote?: { result: number; text: string; fromTitle: boolean } | undefined;
}

/** Everything the summary states. */
export interface SummaryMaterial {
  /** Matched results on this page (0-based positions, in order). */
  matched: number[];
  /** Posts matched among the candidates scored (at least `matched.length`). */
  matchedCount: number;
  matchedAtLeast: boolean;
  /** The floor applied, or undefined when the results carry no relevance (all matched). */
  floor: number | undefined;
  themes: Theme[];
}

/** Quoted sentences are this long at least and at most (shorter ones say little, longer ones crowd). */
const MIN_CHARS = 25;
const MAX_CHARS = 280;
/** The quote is taken from one of the theme's first this many posts closest to its centre and the query. */
const QUOTE_POSTS = 3;

function sentimentMix(results: readonly SummaryInput[], members: readonly number[]): Theme["sentiment"] {
  if (members.some((i) => results[i]!.sentiment === undefined)) return undefined;
  const mix: Record<SentimentLabel, number> = { positive: 0, neutral: 0, negative: 0 };
  for (const i of members) mix[results[i]!.sentiment!]++;
  return mix;
}

function timeSpan(results: readonly SummaryInput[], members: readonly number[]): Theme["span"] {
  const times = members.map((i) => results[i]!.created ?? 0).filter((t) => t > 0);
  return times.length === 0 ? undefined : { first: Math.min(...times), last: Math.max(...times) };
}

/**
 * Weight of closeness to the query against closeness to the theme's centre, in ranking a theme's
 * posts; with RANK_WEIGHT, chosen on SemEval-2016 T3 train_part2 by the share of quotes from
 * relevant threads (docs/EVALUATION.md, "ai_summary"), dev only reported.
 */
const QUERY_WEIGHT = 6;
/** Weight of a result's position in the page (RANK_WEIGHT / (1 + position)): the page comes ranked. */
const RANK_WEIGHT = 1;

/**
 * The theme's members ordered by how well they stand for it and answer the query: closeness to
 * the theme's centre, closeness to the query (weighted more: a theme is quoted for the question
 * asked) and the result's position; by position alone when vectors are missing.
 */
function representatives(results: readonly SummaryInput[], members: readonly number[], queryVector?: Float32Array) {
  const vectors = members.map((i) => results[i]!.vector);
  if (vectors.some((v) => v === undefined)) return [...members];
  const centre = centroid(vectors as Float32Array[]);
  const score = (i: number) =>
    cosine(results[i]!.vector!, centre) +
    (queryVector !== undefined ? QUERY_WEIGHT * cosine(results[i]!.vector!, queryVector) : 0) +
    RANK_WEIGHT / (1 + i);
  return [...members].sort((a, b) => score(b) - score(a) || a - b);
}

/** Prior of a sentence from the theme's first, second, ... representative. */
const POST_PRIOR = [0.3, 0.15, 0];

/**
 * The sentence to quote for a theme: of the bodies of its best representatives, the sentence of
 * quotable length naming the most query terms (and then label terms), with a lead for the better
 * representatives; a title only for a post with no body. A sentence naming no query term is not
 * quoted: when no post of the theme has one, the theme is stated without a quote rather than
 * quoting what does not answer.
 */
function pickQuote(
  results: readonly SummaryInput[],
  ranked: readonly number[],
  queryStems: ReadonlySet<string>,
  labelStems: ReadonlySet<string>,
): Theme["quote"] {
  let best: { result: number; text: string; score: number; fromTitle: boolean } | undefined;
  for (const [rank, i] of ranked.slice(0, QUOTE_POSTS).entries()) {
    const r = results[i]!;
    const body = sentences(r.content);
    const texts = body.length > 0 ? body : [r.title];
    for (const [position, text] of texts.entries()) {
      const ts = new Set(terms(text));
      if (body.length > 0 && (text.length < MIN_CHARS || text.length > MAX_CHARS)) continue;
      if (ts.size < 3) continue;
      let q = 0;
      let l = 0;
      for (const t of ts) {
        if (queryStems.has(t)) q++;
        if (labelStems.has(t)) l++;
      }
      if (q === 0) continue;
      const score = (q + 0.5 * l) / Math.sqrt(ts.size) + POST_PRIOR[rank]! + (position === 0 ? 0.1 : 0);
      if (best === undefined || score > best.score) best = { result: i, text, score, fromTitle: body.length === 0 };
    }
  }
  return best === undefined ? undefined : { result: best.result, text: best.text, fromTitle: best.fromTitle };
}

/** Computes the summary's material from the page of results. */
export function summaryMaterial(
  query: string,
  results: readonly SummaryInput[],
  context: SummaryContext = {},
  floor: number = MATCH_FLOOR,
): SummaryMaterial {
  const scored = results.some((r) => r.relevance !== undefined);
  const matched = results.flatMap((r, i) => (r.relevance === undefined || r.relevance >= floor ? [i] : []));
  const material: SummaryMaterial = {
    matched,
    matchedCount: Math.max(context.matched ?? matched.length, matched.length),
    matchedAtLeast: context.matchedAtLeast === true,
    floor: scored ? floor : undefined,
    themes: [],
  };
  if (matched.length === 0) return material;
  const vectors = matched.map((i) => results[i]!.vector);
  const groups = vectors.every((v) => v !== undefined)
    ? themeGroups(vectors as Float32Array[]).map((g) => g.map((k) => matched[k]!))
    : [matched];
  const queryStems = new Set(terms(querySubject(query)));
  const labels = themeLabels(results, groups, queryStems);
  material.themes = groups.map((members, gi) => {
    const label = labels[gi]!;
    const ranked = representatives(results, members, context.queryVector);
    const theme: Theme = {
      label,
      members,
      quote: pickQuote(results, ranked, queryStems, new Set(terms(label))),
    };
    const span = timeSpan(results, members);
    if (span !== undefined) theme.span = span;
    const sentiment = sentimentMix(results, members);
    if (sentiment !== undefined) theme.sentiment = sentiment;
    return theme;
  });
  return material;
}
