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

/** Splits text into candidate sentences (trimmed, URLs and markdown noise removed). */
export function sentences(text: string): string[] {
  const clean = text
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[*_`#>|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
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

/** Content terms of a text: lower-cased, stop words dropped, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'+-]*/gu)) {
    const w = m[0].replace(/'s$/, "");
    if (w.length < 2 || STOP.has(w)) continue;
    out.push(stem(w));
  }
  return out;
}

/** Jaccard similarity of two term sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}
