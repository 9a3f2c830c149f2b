/**
 * The ai_summary contract. The default is extractive (themes of the results, each with a sentence
 * quoted from its posts); an LLM writer can be configured. Either way a summary cites results only
 * by their 1-based position in the response, and never a post that is not in it.
 */
import type { SentimentLabel } from "../../model/post.js";

/** A result as the summarizer sees it, in response order. */
export interface SummaryInput {
  title: string;
  content: string;
  subforum: string;
  /**
   * The result's score on the search's 0..1 scale (`relevance` of SemanticSearch), when the
   * caller has one: results below the match floor (match-floor.ts) are not summarised.
   */
  relevance?: number;
  /** Creation time, epoch milliseconds UTC, for a theme's time span; absent or 0 when unknown. */
  created?: number;
  /** The post's sentiment label, for a theme's sentiment mix. */
  sentiment?: SentimentLabel;
  /** The post's stored embedding, to group results into themes; without it all form one theme. */
  vector?: Float32Array;
}

/** What the caller knows beyond the page. */
export interface SummaryContext {
  /**
   * How many posts matched above the floor among the candidates scored (the page's own matched
   * results when absent).
   */
  matched?: number;
  /** True when every candidate scored matched, so `matched` is a lower bound. */
  matchedAtLeast?: boolean;
  /** The query's embedding, to pick the post closest to both its theme and the query. */
  queryVector?: Float32Array;
}

/** Writes a short answer to `query` from `results`. */
export interface Summarizer {
  readonly kind: "extractive" | "llm";
  summarize(
    query: string,
    results: readonly SummaryInput[],
    signal?: AbortSignal,
    context?: SummaryContext,
  ): Promise<string>;
}

/** What every summarizer says when nothing matched. */
export function noMatchSummary(query: string): string {
  return `No discussions matched "${query}". Try broader or different words.`;
}
