/**
 * Topic coherence as NPMI (normalised pointwise mutual information) of each topic's top keywords,
 * over the posts the topics were built from: for every pair of the topic's words,
 *
 *   NPMI(a, b) = ln(p(a, b) / (p(a) p(b))) / -ln p(a, b)        (-1 when a and b never meet)
 *
 * with p the share of posts using the word(s), averaged over the pairs. Co-occurrence is counted
 * per post (a post is the document), not in BERTopic's 10-word sliding windows.
 */

/** The NPMI of each topic's words (mean over their pairs), in order; NaN for fewer than two words. */
export function npmiByTopic(
  topicWords: readonly (readonly string[])[],
  docs: readonly ReadonlySet<string>[],
): number[] {
  const wanted = new Set(topicWords.flat());
  const postings = new Map<string, Set<number>>();
  docs.forEach((doc, i) => {
    for (const w of doc) {
      if (!wanted.has(w)) continue;
      let s = postings.get(w);
      if (!s) postings.set(w, (s = new Set()));
      s.add(i);
    }
  });
  const n = docs.length;
  return topicWords.map((words) => {
    let sum = 0;
    let pairs = 0;
    for (let i = 0; i < words.length; i++) {
      for (let j = i + 1; j < words.length; j++) {
        const a = postings.get(words[i]!) ?? new Set<number>();
        const b = postings.get(words[j]!) ?? new Set<number>();
        const [small, large] = a.size < b.size ? [a, b] : [b, a];
        let both = 0;
        for (const d of small) if (large.has(d)) both++;
        pairs++;
        if (both === 0 || n === 0) {
          sum += -1;
          continue;
        }
        const pab = both / n;
        // Two words in every post carry no information about each other: NPMI 1 by the limit.
        sum += pab === 1 ? 1 : Math.log(pab / ((a.size / n) * (b.size / n))) / -Math.log(pab);
      }
    }
    return pairs === 0 ? Number.NaN : sum / pairs;
  });
}

/** BERTopic's published coherence (NPMI of top-10 words, Grootendorst 2022, Table 1). */
export const BERTOPIC_NPMI: readonly { corpus: string; npmi: number }[] = [
  { corpus: "20 NewsGroups", npmi: 0.166 },
  { corpus: "BBC News", npmi: 0.167 },
  { corpus: "Trump's tweets", npmi: 0.066 },
];
