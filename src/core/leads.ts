/**
 * FindLeads: posts about the caller's description that were classified as leads at ingest with
 * lead_score >= min_score, ranked by a blend of the two:
 *
 *   rank = LEAD_RELEVANCE_WEIGHT * relevance + (1 - LEAD_RELEVANCE_WEIGHT) * lead_score / 100
 *
 * Hybrid retrieval (filtered to leads above the bar in the engine) finds the candidates; each is
 * then judged on its own by the absolute relevance and the subject rule (absolute-relevance.ts),
 * and those under the model's floor are dropped. The relevance is not normalised against the
 * other candidates, so an ask the corpus holds no lead for gets an empty page rather than the
 * nearest unrelated leads; leads monitors judge new posts with the same function and floor.
 */
import type { Embedder } from "../enrich/embedder.js";
import type { Hit, SearchIndex } from "../index/search-index.js";
import type { IndexedPost } from "../model/post.js";
import { judgeLead, leadFloorFor, relevanceQuery } from "./absolute-relevance.js";
import { judgeCandidates } from "./judged-candidates.js";
import { keywordText } from "./keyword-text.js";
import { leadQuerySubject } from "./lead-query.js";
import { queryVector } from "./query-vector.js";
import type { FilterParams } from "./request-rules.js";
import { RULES, requireText, resolveFilter, resolveLimit, resolveMinScore, resolveSort } from "./request-rules.js";
import { shorten } from "./snippet.js";
import { sortWindow } from "./sort-order.js";

/** Weight of relevance in the lead ranking (documented in the README). */
export const LEAD_RELEVANCE_WEIGHT = 0.6;
/** Candidates fetched per requested lead before re-ranking. */
const CANDIDATES_PER_RESULT = 3;

/** What FindLeads needs. */
export interface LeadsDeps {
  index: SearchIndex;
  embedder: Embedder;
  hybridAlpha: number;
  /** The same weight for a query of one or two words (hybrid-alpha.ts). */
  shortQueryAlpha: number;
}

/** A FindLeads request after transport decoding. */
export interface LeadsParams {
  query: string;
  limit: number | undefined;
  minScore: number | undefined;
  /** The request's PostFilter, absent when not sent. */
  filter?: FilterParams | undefined;
  /** The request's sort order; "" for relevance. */
  sort?: string | undefined;
}

/** A lead with its rank; `score` is its absolute relevance (absolute-relevance.ts). */
export interface RankedLead extends Hit {
  rank: number;
}

/** The lead-finding use case. */
export class LeadsCore {
  constructor(private readonly deps: LeadsDeps) {}

  /** Leads for the query, best first. */
  async find(params: LeadsParams, signal: AbortSignal): Promise<RankedLead[]> {
    const query = requireText("query", params.query);
    const limit = resolveLimit(params.limit);
    const minScore = resolveMinScore(params.minScore);
    const filter = resolveFilter(params.filter);
    const sort = resolveSort(params.sort ?? "");
    // Another order sorts the best-ranked leads of a window as deep as search sorts (sort-order.ts).
    const wanted = sort === "relevance" ? limit : RULES.sortWindow;
    // The embedding is handed over as a promise: the index starts its keyword side (already
    // restricted to leads above the bar by the engine-side filter) while the query is embedded,
    // so the two overlap instead of adding up (the embedding is the larger cost).
    // Retrieved by what the ask is for (lead-query.ts); the response echoes the query as sent.
    const subject = leadQuerySubject(query);
    const vector = queryVector(this.deps.embedder, subject, signal);
    const ask = relevanceQuery(subject, this.deps);
    const floor = leadFloorFor(this.deps.embedder.model);
    // Every candidate is judged on its stored vector and text (judged-candidates.ts), and a post
    // rewritten since retrieval must still be a lead as read.
    const { judged: about } = await judgeCandidates(
      {
        index: this.deps.index,
        retrieve: (choose) =>
          this.deps.index.hybrid(
            {
              text: keywordText(subject),
              vector,
              alpha: ask.alpha,
              limit: Math.min(wanted * CANDIDATES_PER_RESULT, RULES.sortWindow),
              offset: 0,
              filter: { ...filter, minLeadScore: minScore },
              fields: "lead",
              choose,
            },
            signal,
          ),
        vector,
        keep: (c) => isLead(c, minScore),
        judge: (post, cosine, words) => {
          if (!isLead(post, minScore)) return undefined;
          const { relevance, about } = judgeLead(ask, cosine, words, floor);
          return about ? { post, score: relevance, rank: leadRank(relevance, post.leadScore) } : undefined;
        },
      },
      signal,
    );
    const ranked: Hit[] = about
      .sort((a, b) => b.rank - a.rank || a.post.id.localeCompare(b.post.id))
      .slice(0, wanted)
      .map((x) => ({ post: shown(x.post), score: x.score }));
    return (sort === "relevance" ? ranked : sortWindow(ranked, sort).slice(0, limit)).map((h) => ({
      ...h,
      rank: leadRank(h.score, h.post.leadScore),
    }));
  }
}

/** A lead's rank from its relevance (0..1) and lead score (0..100); see the module comment. */
export function leadRank(relevance: number, leadScore: number): number {
  return LEAD_RELEVANCE_WEIGHT * relevance + (1 - LEAD_RELEVANCE_WEIGHT) * (leadScore / 100);
}

/** Whether a candidate or post is a lead at or above `minScore`. */
function isLead(c: { leadType: string; leadScore: number }, minScore: number): boolean {
  return c.leadType !== "" && c.leadScore >= minScore;
}

/** The post as a lead shows it: no vector, the content shortened. */
function shown(p: IndexedPost): RankedLead["post"] {
  const { vector: _, ...post } = p;
  return { ...post, content: shorten(post.content) };
}
