/**
 * Whether a post is about a lead query, judged on the post alone: FindLeads and leads monitors
 * share this judgement, so a monitor and the query it was saved from agree on every post.
 *
 *   relevance = alpha * cosine(query, post) + (1 - alpha) * coverage
 *
 * where coverage is the share of the query's words (three letters or more) the post holds and
 * alpha is the hybrid weight the query is searched with (hybrid-alpha.ts). Unlike the fused
 * score of a hybrid search, nothing is normalised against the other candidates, so a query the
 * corpus holds no lead for scores low on every post instead of lifting its best misses to 1.
 *
 * A lead must also match the query's subject (what the ask is for, lead-query.ts): either every
 * content word of the subject is in the post (a plural or possessive form counts), or the
 * post's vector is within the model's subject similarity of the subject's (the embedding side
 * stands in for synonyms). Both FindLeads and a leads monitor embed the subject as the query, so
 * the one cosine serves both rules. The floor and the subject similarity are per embedding
 * model, chosen on labelled dev data (the `leads-floor` section of `npm run eval`,
 * docs/decisions/0016-absolute-lead-relevance.md); models without a measured pair use the
 * bundled default encoder's.
 */

import { isStopword } from "../topics/terms.js";
import { alphaFor, type HybridAlphas } from "./hybrid-alpha.js";
import { keywordText } from "./keyword-text.js";
import { wordsOf } from "./keyword-words.js";

/** Query words shorter than this do not count toward coverage (articles, "a", "to"). */
const MIN_COVERAGE_WORD = 3;

/** What a lead must reach for one embedding model. */
export interface LeadFloor {
  /** Least absolute relevance, 0..1. */
  floor: number;
  /** Least cosine between the subject and the post when the post lacks a subject word. */
  subjectSimilarity: number;
}

/** Floors by embedding model id. */
export const LEAD_FLOORS: Readonly<Record<string, Readonly<LeadFloor>>> = Object.freeze({
  "use-lite-512": Object.freeze({ floor: 0.52, subjectSimilarity: 0.55 }),
  "all-minilm-l6-v2-384": Object.freeze({ floor: 0.49, subjectSimilarity: 0.52 }),
});

/** The model the fallback floor comes from. */
const DEFAULT_MODEL = "use-lite-512";

/** The floor for vectors of `model`. */
export function leadFloorFor(model: string): LeadFloor {
  return LEAD_FLOORS[model] ?? LEAD_FLOORS[DEFAULT_MODEL]!;
}

/** A query's text prepared once for judging many posts. */
export interface RelevanceQuery {
  /** Weight of the cosine. */
  alpha: number;
  /** Distinct words that count toward coverage. */
  words: string[];
  /** Distinct content words of the subject (no stop words), all of which a post may hold instead of the subject similarity. */
  subjectWords: string[];
}

/** The words of a query that count toward coverage. */
export function coverageWords(query: string): string[] {
  return [...new Set(wordsOf(keywordText(query)).filter((w) => w.length >= MIN_COVERAGE_WORD))];
}

/** The content words of a subject: its coverage words less stop words (all of them when every one is a stop word). */
export function subjectWords(subject: string): string[] {
  const words = coverageWords(subject);
  const content = words.filter((w) => !isStopword(w));
  return content.length > 0 ? content : words;
}

/** Prepares `subject`, the text the query is embedded and searched as, for judging posts. */
export function relevanceQuery(subject: string, alphas: HybridAlphas): RelevanceQuery {
  return {
    alpha: alphaFor(keywordText(subject), alphas),
    words: coverageWords(subject),
    subjectWords: subjectWords(subject),
  };
}

/** The distinct words of a post's title and content, as coverage counts them. */
export function postWords(post: { title: string; content: string }): Set<string> {
  return new Set([...wordsOf(post.title), ...wordsOf(post.content)]);
}

/** Share of `words` in `postWords`; 0 for a query without any. */
export function coverage(words: readonly string[], postWords: ReadonlySet<string>): number {
  // A counting loop, not filter(): monitors run this for many (post, monitor) pairs.
  let hits = 0;
  for (const w of words) if (postWords.has(w)) hits++;
  return words.length === 0 ? 0 : hits / words.length;
}

/** The absolute relevance from a cosine and a coverage share, clamped to 0..1. */
export function absoluteRelevance(cosine: number, alpha: number, covered: number): number {
  return Math.min(1, Math.max(0, alpha * cosine + (1 - alpha) * covered));
}

/** Whether `postWords` holds `word`, or its plural or possessive, or (for a plural) its singular. */
function holdsWord(postWords: ReadonlySet<string>, word: string): boolean {
  if (postWords.has(word) || postWords.has(`${word}s`) || postWords.has(`${word}'s`)) return true;
  return word.length > 3 && word.endsWith("s") && postWords.has(word.slice(0, -1));
}

/** The subject rule: every subject word in the post, or the cosine at least the subject similarity. */
export function subjectMatches(
  q: RelevanceQuery,
  cosine: number,
  postWords: ReadonlySet<string>,
  subjectSimilarity: number,
): boolean {
  if (cosine >= subjectSimilarity) return true;
  if (q.subjectWords.length === 0) return false;
  for (const w of q.subjectWords) if (!holdsWord(postWords, w)) return false;
  return true;
}

/** How a post was judged. */
export interface LeadJudgement {
  relevance: number;
  /** The relevance reaches the floor and the subject matches. */
  about: boolean;
}

/** Judges one post from its cosine with the query's vector and its words. */
export function judgeLead(
  q: RelevanceQuery,
  cosine: number,
  postWords: ReadonlySet<string>,
  floor: LeadFloor,
): LeadJudgement {
  const relevance = absoluteRelevance(cosine, q.alpha, coverage(q.words, postWords));
  const about = relevance >= floor.floor && subjectMatches(q, cosine, postWords, floor.subjectSimilarity);
  return { relevance, about };
}

/**
 * Cosine of two L2-normalised vectors (what the encoders store and embed queries as): their dot
 * product, as the monitors' batch product computes it, so both paths judge from the same number.
 */
export function cosineOfUnit(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`cosine of a ${a.length}-value and a ${b.length}-value vector`);
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
  return d;
}
