/**
 * Phrase labels. A topic's keywords are single terms, so a cluster about artificial intelligence
 * was labelled "robot · artificial · intelligence" and one about the city "san · francisco ·
 * airbnb". When two of a topic's leading keywords are written next to each other (in that
 * order) by most of the posts that use the rarer of them, the label shows them as one phrase:
 * "artificial intelligence · robot". Adjacency is read from the post's own words, stopwords
 * included, so "bank of america" never becomes the phrase "bank america".
 */
import { LABEL_WORDS } from "./ctfidf.js";
import { stripLinks } from "./terms.js";

/** Leading keywords of a topic whose pairs may form a phrase. */
export const PHRASE_CANDIDATES = 5;
/** Least share of the rarer word's posts that must write the pair as a phrase. */
export const PHRASE_SHARE = 0.5;
/** Fewest posts of the topic that must write the phrase. */
export const MIN_PHRASE_POSTS = 3;

/** Every ordered pair of distinct words among a topic's first {@link PHRASE_CANDIDATES} keywords, as "a b". */
export function candidatePhrases(keywords: readonly string[]): string[] {
  const top = keywords.slice(0, PHRASE_CANDIDATES);
  const out: string[] = [];
  for (const a of top) for (const b of top) if (a !== b) out.push(`${a} ${b}`);
  return out;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A matcher of `phrase` ("a b") as two adjacent whole words of lower-cased text. */
export function phraseMatcher(phrase: string): RegExp {
  const [a = "", b = ""] = phrase.split(" ");
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(a)}\\s+${escapeRegExp(b)}(?![\\p{L}\\p{N}])`, "u");
}

/** Of `phrases`, those the text (title and body) writes, each once. */
export function phrasesIn(text: string, matchers: ReadonlyMap<string, RegExp>): string[] {
  const lower = stripLinks(text.toLowerCase());
  const found: string[] = [];
  for (const [phrase, re] of matchers) if (re.test(lower)) found.push(phrase);
  return found;
}

/**
 * The label of a topic from its keywords (best first), how many of its posts use each word, and
 * how many write each candidate phrase: up to {@link LABEL_WORDS} parts, each a keyword or a
 * phrase of two keywords, joined by " · ".
 */
export function phraseLabel(
  keywords: readonly string[],
  wordPosts: ReadonlyMap<string, number>,
  phrasePosts: ReadonlyMap<string, number>,
): string {
  if (keywords.length === 0) return "(no keywords)";
  const top = keywords.slice(0, PHRASE_CANDIDATES);
  const used = new Set<string>();
  const parts: string[] = [];
  for (const word of keywords) {
    if (parts.length === LABEL_WORDS) break;
    if (used.has(word)) continue;
    let best: { phrase: string; other: string; share: number } | undefined;
    if (top.includes(word)) {
      for (const other of top) {
        if (other === word || used.has(other)) continue;
        for (const phrase of [`${word} ${other}`, `${other} ${word}`]) {
          const n = phrasePosts.get(phrase) ?? 0;
          const rarer = Math.min(wordPosts.get(word) ?? 0, wordPosts.get(other) ?? 0);
          const share = rarer === 0 ? 0 : n / rarer;
          if (n >= MIN_PHRASE_POSTS && share >= PHRASE_SHARE && (best === undefined || share > best.share)) {
            best = { phrase, other, share };
          }
        }
      }
    }
    used.add(word);
    if (best !== undefined) used.add(best.other);
    parts.push(best?.phrase ?? word);
  }
  return parts.join(" · ");
}
