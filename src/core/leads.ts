/**
 * FindLeads: posts relevant to the caller's description (hybrid retrieval) that were classified
 * as leads at ingest with lead_score >= min_score, ranked by a blend of the two:
 *
 *   rank = LEAD_RELEVANCE_WEIGHT * relevance + (1 - LEAD_RELEVANCE_WEIGHT) * lead_score / 100
 *
 * Relevance dominates so results stay on topic; the score breaks ties towards stronger intent.
 * The index applies the lead filter, so every candidate is already a lead above the bar.
 */
import type { Embedder } from "../enrich/embedder.js";
import type { Hit, SearchIndex } from "../index/search-index.js";
import { requireText, resolveLimit, resolveMinScore } from "./request-rules.js";
import { shorten } from "./snippet.js";

/** Weight of relevance in the lead ranking (documented in the README). */
export const LEAD_RELEVANCE_WEIGHT = 0.6;
/** Candidates fetched per requested lead before re-ranking. */
const CANDIDATES_PER_RESULT = 3;

/** What FindLeads needs. */
export interface LeadsDeps {
  index: SearchIndex;
  embedder: Embedder;
  hybridAlpha: number;
}

/** A FindLeads request after transport decoding. */
export interface LeadsParams {
  query: string;
  limit: number | undefined;
  minScore: number | undefined;
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
    // The embedding is handed over as a promise: the index starts its keyword side (already
    // restricted to leads above the bar by the engine-side filter) while the query is embedded,
    // so the two overlap instead of adding up (the embedding is the larger cost).
    const vector = this.deps.embedder.embed([query], signal).then(([v]) => v!);
    vector.catch(() => {}); // awaited by the index; a failure surfaces there, not as unhandled
    const hits = await this.deps.index.hybrid(
      { text: query, vector, alpha: this.deps.hybridAlpha, limit: limit * CANDIDATES_PER_RESULT, offset: 0, filter: { minLeadScore: minScore } },
      signal,
    );
    return hits
      .filter((h) => h.post.leadType !== "" && h.post.leadScore >= minScore)
      .map((h) => ({
        post: { ...h.post, content: shorten(h.post.content) },
        score: h.score,
        rank: LEAD_RELEVANCE_WEIGHT * h.score + (1 - LEAD_RELEVANCE_WEIGHT) * (h.post.leadScore / 100),
      }))
      .sort((a, b) => b.rank - a.rank || a.post.id.localeCompare(b.post.id))
      .slice(0, limit);
  }
}
