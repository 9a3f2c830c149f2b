/**
 * Keyword lists without a word's plural beside its singular. A topic labelled "entrepreneurs ·
 * free · entrepreneur" or a trend whose keywords hold both "coupon" and "coupons" spends a slot
 * on a word already shown (both seen on a 4,013-post index). Terms are compared by a crude
 * English singular, used only to tell two forms apart: the list keeps the best-ranked form.
 */

/** The form `term` is compared by: a plural's singular ("companies" -> "company"), else the term. */
export function singularKey(term: string): string {
  const n = term.length;
  if (n > 4 && term.endsWith("ies")) return `${term.slice(0, -3)}y`;
  if (n > 4 && /(?:ss|x|z|ch|sh)es$/.test(term)) return term.slice(0, -2);
  // "business", "status", "analysis": an s after s, u or i is not a plural ending.
  if (n > 3 && term.endsWith("s") && !/[siu]s$/.test(term)) return term.slice(0, -1);
  return term;
}

/** The first `top` items of a best-first list whose terms differ as singulars (the best form stays). */
export function distinctForms<T>(ranked: readonly T[], top: number, termOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of ranked) {
    if (out.length >= top) break;
    const key = singularKey(termOf(item));
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}
