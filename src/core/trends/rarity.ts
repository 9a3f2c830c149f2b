/**
 * How specific a term is to what a post is about: its inverse document frequency over the posts
 * the topic model was built from, ln((N + 1) / (df + 1)). Trending keywords multiply a term's
 * rise (its log-odds z) by it. The z alone ranks by the strength of the evidence, and a common
 * word has more of it at the same counts (its prior is larger, so its variance smaller): over
 * small windows, where little rises significantly, "extra, decide, mean, include, case" led
 * a SaaS pricing topic's keywords while "discount" and "segment" rose as much.
 *
 * A term the model does not list is used by fewer than MIN_CORPUS_DOCUMENTS of its posts, or is
 * newer than the model (a product named after the last rebuild): it gets the rarity of a term
 * used by MIN_CORPUS_DOCUMENTS - 1 posts, the highest there is. A model without corpus counts
 * (built before they were kept) weighs every term 1, the ranking by z alone.
 */

import type { TopicModel } from "../../topics/topic-model.js";
import { MIN_CORPUS_DOCUMENTS } from "../../topics/topic-model.js";

const cache = new WeakMap<TopicModel, (term: string) => number>();

const ONE = (): number => 1;

/** The rarity weight of the model's corpus (cached per model object). */
export function termRarity(model: TopicModel | undefined): (term: string) => number {
  if (!model?.corpus) return ONE;
  let f = cache.get(model);
  if (!f) {
    const n = model.corpus.posts;
    const df = new Map(model.corpus.documentFrequency);
    const idf = (count: number) => Math.log((n + 1) / (count + 1));
    const rarest = idf(MIN_CORPUS_DOCUMENTS - 1);
    f = (term) => {
      const count = df.get(term);
      return count === undefined ? rarest : Math.max(idf(count), 0);
    };
    cache.set(model, f);
  }
  return f;
}
