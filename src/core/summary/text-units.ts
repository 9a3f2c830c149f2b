/**
 * Sentence splitting and term extraction for the extractive summary. Deliberately simple and
 * fast (it runs on every semantic search): regex sentence boundaries, lower-cased word tokens,
 * a small English stop list and suffix stripping so "pricing" meets "price".
 */

const STOP = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "just me my no not of on or our so than that the their them then there these they this to too was we were " +
    "what when where which who why will with would you your about any all also am more most some such very"
  ).split(" "),
);

/** Text with URLs and markdown noise removed and white space collapsed, as sentences are cut from it. */
export function cleanText(text: string): string {
  return text
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[*_`#>|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Splits text into candidate sentences (trimmed, URLs and markdown noise removed). */
export function sentences(text: string): string[] {
  const clean = cleanText(text);
  if (clean === "") return [];
  return clean
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Reduces a word to a crude stem: enough to match plural and -ing/-ed forms. */
export function stem(word: string): string {
  for (const suffix of ["ingly", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly"]) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) {
      return suffix === "ies" ? `${word.slice(0, -3)}y` : word.slice(0, -suffix.length);
    }
  }
  return word;
}

/** A content word as written (lower-cased) and its stem. */
export interface TermToken {
  word: string;
  stem: string;
}

/** Content words of a text in order, each with its stem: labels show the word, matching uses the stem. */
export function termTokens(text: string): TermToken[] {
  const out: TermToken[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'+-]*/gu)) {
    const w = m[0].replace(/'s$/, "");
    if (w.length < 2 || STOP.has(w)) continue;
    out.push({ word: w, stem: stem(w) });
  }
  return out;
}

/** Content terms of a text: lower-cased, stop words dropped, stemmed. */
export function terms(text: string): string[] {
  return termTokens(text).map((t) => t.stem);
}

/** Jaccard similarity of two term sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * A sentence in double quotes as written, but for a closing "." or "!" (the summary's own sentence
 * ends there), repeated question marks, and its own double quotes made single. A title that asks
 * with no mark gets none: a quote that added one would misquote it.
 */
export function quoted(text: string): string {
  const t = text
    .trim()
    .replace(/["“”]/g, "'")
    .replace(/[.!]+$/, "")
    .replace(/\?{2,}$/, "?");
  return `"${t}"`;
}
