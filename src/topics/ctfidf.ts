/**
 * Class-based TF-IDF (as BERTopic labels clusters): all posts of a cluster form one document;
 * a term's weight in cluster c is
 *
 *     w(t, c) = tf(t, c) / |c|  *  ln(1 + A / f(t))
 *
 * where tf(t, c) is the term's count in the cluster, |c| the cluster's total term count, A the
 * mean number of terms per cluster and f(t) the term's count over all clusters. What a count is
 * is the caller's: the topic builder counts posts using the term, not occurrences (build.ts). Terms frequent
 * in one cluster and rare elsewhere win. Terms seen in fewer than `minCount` posts of the corpus
 * are ignored, so one post's typo cannot label a topic.
 */

import { distinctForms } from "./inflection.js";

/** Per-cluster term counts, and per-term document frequency over the corpus. */
export interface ClassTerms {
  counts: Map<string, number>[];
  docFrequency: Map<string, number>;
}

/** Keywords of each cluster, best first, with their weights; a plural beside its singular is left out (inflection.ts). */
export function classKeywords(input: ClassTerms, top: number, minDocs = 2): { term: string; weight: number }[][] {
  const total = new Map<string, number>();
  const sizes = input.counts.map((counts) => {
    let size = 0;
    for (const [t, n] of counts) {
      size += n;
      total.set(t, (total.get(t) ?? 0) + n);
    }
    return size;
  });
  const nonEmpty = sizes.filter((s) => s > 0);
  const avg = nonEmpty.length === 0 ? 0 : nonEmpty.reduce((a, b) => a + b, 0) / nonEmpty.length;
  return input.counts.map((counts, c) => {
    const size = sizes[c]!;
    if (size === 0) return [];
    const scored: { term: string; weight: number }[] = [];
    for (const [t, n] of counts) {
      if ((input.docFrequency.get(t) ?? 0) < minDocs) continue;
      scored.push({ term: t, weight: (n / size) * Math.log(1 + avg / total.get(t)!) });
    }
    scored.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
    return distinctForms(scored, top, (w) => w.term);
  });
}

/** Parts (keywords or two-word phrases, phrases.ts) a label shows. */
export const LABEL_WORDS = 3;
