/**
 * Term counts of keyword posts, remembered between ListTrends calls. Tokenizing the keyword
 * posts is the costliest step of a call (up to 100 posts per shown topic and window), and the
 * same posts come back whenever a window is asked again, so each post's counts are kept under
 * its id together with the exact text they were counted from: a post whose text changed is
 * counted again, so the answer never differs from counting afresh. Least recently used entries
 * go first once {@link TermCache.capacity} posts are held.
 */
import { countTerms } from "../../topics/terms.js";

interface Entry {
  text: string;
  terms: string[];
  counts: number[];
}

/** Posts remembered by default: the keyword posts of two windows at limit 20. */
export const TERM_CACHE_POSTS = 4_000;

export class TermCache {
  private readonly entries = new Map<string, Entry>();

  constructor(readonly capacity = TERM_CACHE_POSTS) {}

  /** Adds the term counts of post `id`, whose tokenized text is `text`, to `into`. */
  addTo(id: string, text: string, into: Map<string, number>): void {
    let e = this.entries.get(id);
    if (e && e.text === text) {
      // Refresh its place in the eviction order.
      this.entries.delete(id);
      this.entries.set(id, e);
    } else {
      const counts = countTerms(text, new Map());
      e = { text, terms: [...counts.keys()], counts: [...counts.values()] };
      this.entries.delete(id);
      this.entries.set(id, e);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    for (let i = 0; i < e.terms.length; i++) into.set(e.terms[i]!, (into.get(e.terms[i]!) ?? 0) + e.counts[i]!);
  }

  get size(): number {
    return this.entries.size;
  }
}
