/**
 * How many keyword posts use each term, from each post's terms remembered between ListTrends
 * calls. A post counts once per term however often it repeats it: a trending keyword is one that
 * many posts of the window use, and by raw counts one long post repeating "excel" or "str" twenty
 * times outweighed a word twenty posts used once. Tokenizing the keyword
 * posts is the costliest step of a call (up to 100 posts per shown topic and window), and the
 * same posts come back whenever a window is asked again, so each post's distinct terms are kept
 * under its id together with the exact text they were read from: a post whose text changed is
 * read again, so the answer never differs from counting afresh. Least recently used entries
 * go first once {@link TermCache.capacity} posts are held.
 */
import { terms } from "../../topics/terms.js";

interface Entry {
  text: string;
  /** The post's distinct terms. */
  terms: string[];
}

/** Posts remembered by default: the keyword posts of two windows at limit 20. */
export const TERM_CACHE_POSTS = 4_000;

export class TermCache {
  private readonly entries = new Map<string, Entry>();

  constructor(readonly capacity = TERM_CACHE_POSTS) {}

  /** Adds 1 to `into` for each distinct term of post `id`, whose tokenized text is `text`. */
  addTo(id: string, text: string, into: Map<string, number>): void {
    let e = this.entries.get(id);
    if (e && e.text === text) {
      // Refresh its place in the eviction order.
      this.entries.delete(id);
      this.entries.set(id, e);
    } else {
      e = { text, terms: [...new Set(terms(text))] };
      this.entries.delete(id);
      this.entries.set(id, e);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    for (const t of e.terms) into.set(t, (into.get(t) ?? 0) + 1);
  }

  get size(): number {
    return this.entries.size;
  }
}
