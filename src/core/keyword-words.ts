/**
 * How keyword monitors and the absolute relevance of a lead split text into words: lower-cased
 * runs of letters, digits and the characters that belong inside technical words (c++, c#,
 * node.js, o'reilly), so that what a user types in a query splits the same way as the post it
 * should match.
 */

const WORD = /[\p{L}\p{N}][\p{L}\p{N}+#'._-]*/gu;

/** The words of `text`, lower-cased, trailing punctuation (".", "'", "-") trimmed. */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0].replace(/[._'-]+$/u, "");
    if (w !== "") out.push(w);
  }
  return out;
}
