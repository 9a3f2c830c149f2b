/**
 * The candidates of one hybrid request, each judged on its post alone: the retrieval's `choose`
 * keeps the fused candidates and picks none, their posts are read once by id with their vectors,
 * and each is handed to a judge with its cosine to the query and its words. SemanticSearch over
 * min_relevance (absolute-hits.ts) and FindLeads (leads.ts) judge this way, so that a monitor
 * saved from the same query agrees with them (absolute-relevance.ts).
 */
import type { HybridCandidate, HybridQuery, SearchIndex } from "../index/search-index.js";
import type { IndexedPost } from "../model/post.js";
import { cosineOfUnit, postWords } from "./absolute-relevance.js";

/** What a hybrid request's `choose` is given and returns. */
export type Choose = NonNullable<HybridQuery["choose"]>;

/** How to retrieve, read and judge the candidates. */
export interface CandidateJudging<T> {
  index: SearchIndex;
  /** Runs the hybrid request with this `choose` (which keeps the page and picks none). */
  retrieve: (choose: Choose) => Promise<unknown>;
  /** The query's embedding, the one the retrieval was given. */
  vector: Promise<Float32Array>;
  /** Which fused candidates to read; default every one. */
  keep?: (candidate: HybridCandidate) => boolean;
  /** A post's verdict from its cosine with the query and its distinct words; undefined drops it. */
  judge: (post: IndexedPost, cosine: number, words: ReadonlySet<string>) => T | undefined;
}

/** The verdicts on the candidates' posts (in read order), and how many candidates were read. */
export interface JudgedCandidates<T> {
  candidates: number;
  judged: T[];
}

/** Retrieves the candidates, reads their posts in one call and judges each. */
export async function judgeCandidates<T>(j: CandidateJudging<T>, signal: AbortSignal): Promise<JudgedCandidates<T>> {
  let candidates: readonly HybridCandidate[] = [];
  await j.retrieve((page) => {
    candidates = j.keep ? page.filter(j.keep) : page;
    return [];
  });
  const posts =
    candidates.length === 0
      ? []
      : await j.index.getIndexed(
          candidates.map((c) => c.id),
          signal,
        );
  const q = await j.vector;
  const judged: T[] = [];
  // Judged on the posts as read: a post rewritten between retrieval and reading is judged by
  // what is returned.
  for (const p of posts) {
    const verdict = j.judge(p, cosineOfUnit(q, p.vector), postWords(p));
    if (verdict !== undefined) judged.push(verdict);
  }
  return { candidates: candidates.length, judged };
}
