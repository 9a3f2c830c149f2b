/**
 * FindLeads: posts relevant to the caller's description (hybrid retrieval) that were classified
 * as leads at ingest with lead_score >= min_score, ranked by a blend of the two:
 *
 *   rank = LEAD_RELEVANCE_WEIGHT * relevance + (1 - LEAD_RELEVANCE_WEIGHT) * lead_score / 100
 *
 * Relevance dominates so results stay on topic; the score breaks ties towards stronger intent.
 * The index applies the lead filter, so every candidate is already a lead above the bar. The
 * ranking runs on the fused candidates before their posts are read (HybridQuery.choose), so the
 * index reads the returned leads only, and only the fields a lead shows.
 */
import type { Embedder } from "../enrich/embedder.js";
import type { Hit, HybridCandidate, SearchIndex } from "../index/search-index.js";
import { alphaFor } from "./hybrid-alpha.js";
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

/** A lead with its rank. */
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
    const choose = (page: readonly HybridCandidate[]): HybridCandidate[] => best(page, (c) => c, minScore, wanted);
    const text = keywordText(subject);
    const hits = await this.deps.index.hybrid(
      {
        text,
        vector,
        alpha: alphaFor(text, this.deps),
        limit: Math.min(wanted * CANDIDATES_PER_RESULT, RULES.sortWindow),
        offset: 0,
        filter: { ...filter, minLeadScore: minScore },
        fields: "lead",
        choose,
      },
      signal,
    );
    // Ranked again on the posts as read: a post rewritten between ranking and reading is judged
    // by what is returned.
    const ranked = best(
      hits,
      (h) => ({ id: h.post.id, score: h.score, leadType: h.post.leadType, leadScore: h.post.leadScore }),
      minScore,
      wanted,
    );
    return (sort === "relevance" ? ranked : sortWindow(ranked, sort).slice(0, limit)).map((h) => ({
      post: { ...h.post, content: shorten(h.post.content) },
      score: h.score,
      rank: leadRank(h.score, h.post.leadScore),
    }));
  }
}

/** A lead's rank from its relevance (0..1) and lead score (0..100); see the module comment. */
export function leadRank(relevance: number, leadScore: number): number {
  return LEAD_RELEVANCE_WEIGHT * relevance + (1 - LEAD_RELEVANCE_WEIGHT) * (leadScore / 100);
}

/** The best `limit` leads of `items` at or above `minScore`, by rank, ties by id. */
function best<T>(items: readonly T[], view: (item: T) => HybridCandidate, minScore: number, limit: number): T[] {
  return items
    .map((item) => ({ item, c: view(item) }))
    .filter(({ c }) => c.leadType !== "" && c.leadScore >= minScore)
    .map((x) => ({ ...x, rank: leadRank(x.c.score, x.c.leadScore) }))
    .sort((a, b) => b.rank - a.rank || a.c.id.localeCompare(b.c.id))
    .slice(0, limit)
    .map(({ item }) => item);
}
