/**
 * SemanticSearch over an absolute relevance bar (`min_relevance`): the posts whose relevance,
 * judged on the post alone as a search monitor judges it (absolute-relevance.ts), reaches the
 * bar. Hybrid retrieval names the candidates (the sort window's worth, read by id with their
 * vectors in one call: judged-candidates.ts); each is scored by its cosine with the query and the
 * share of the query's words it holds, nothing normalised against the other candidates, so a
 * monitor saved from the same query and bar matches the same posts.
 */

import type { Hit, SearchIndex } from "../index/search-index.js";
import { absoluteRelevance, coverage, relevanceQuery } from "./absolute-relevance.js";
import type { HybridAlphas } from "./hybrid-alpha.js";
import { type Choose, judgeCandidates } from "./judged-candidates.js";
import type { SortOrder } from "./request-rules.js";
import { RULES } from "./request-rules.js";
import { sortWindow } from "./sort-order.js";

/** What a thresholded search needs. */
export interface ThresholdedSearch {
  index: SearchIndex;
  /** The text the query is embedded and searched as (its subject, query-subject.ts). */
  subject: string;
  alphas: HybridAlphas;
  vector: Promise<Float32Array>;
  minRelevance: number;
  sort: SortOrder;
  offset: number;
  limit: number;
}

/** Runs one hybrid page request of SearchCore. */
export type HybridRun = (page: { limit: number; offset: number; choose?: Choose }) => Promise<Hit[]>;

/**
 * The hits from `offset` on (one more than the page, to tell whether another follows) that reach
 * the bar, scored by their absolute relevance, in `sort` order (relevance: best first, ties by
 * id); and how many reached it among the candidates judged.
 */
export async function thresholdedHits(
  s: ThresholdedSearch,
  run: HybridRun,
  signal: AbortSignal,
): Promise<{ hits: Hit[]; matched: { matched: number; matchedAtLeast: boolean } }> {
  const query = relevanceQuery(s.subject, s.alphas);
  const { candidates, judged: passing } = await judgeCandidates<Hit>(
    {
      index: s.index,
      retrieve: (choose) => run({ limit: RULES.sortWindow, offset: 0, choose }),
      vector: s.vector,
      judge: (p, cosine, words) => {
        const relevance = absoluteRelevance(cosine, query.alpha, coverage(query.words, words));
        if (relevance < s.minRelevance) return undefined;
        const { vector: _, ...post } = p;
        return { post, score: relevance };
      },
    },
    signal,
  );
  const ordered =
    s.sort === "relevance"
      ? passing.sort((a, b) => b.score - a.score || (a.post.id < b.post.id ? -1 : a.post.id > b.post.id ? 1 : 0))
      : sortWindow(passing, s.sort);
  return {
    hits: ordered.slice(s.offset, s.offset + s.limit + 1),
    matched: {
      matched: passing.length,
      matchedAtLeast: candidates >= RULES.sortWindow && passing.length === candidates,
    },
  };
}
