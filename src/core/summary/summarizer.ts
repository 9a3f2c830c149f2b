/**
 * The ai_summary contract. The default is extractive (sentences chosen from the results, with
 * light framing); an LLM writer can be configured. Either way a summary cites results only by
 * their 1-based position in the response, and never a post that is not in it.
 */

/** A result as the summarizer sees it, in response order. */
export interface SummaryInput {
  title: string;
  content: string;
  subforum: string;
  /**
   * The result's score on the search's 0..1 scale (`relevance` of SemanticSearch), when the
   * caller has one: the extractive summary reads only results scoring near the best one.
   */
  relevance?: number;
}

/** Writes a 2-4 sentence answer to `query` from `results`. */
export interface Summarizer {
  readonly kind: "extractive" | "llm";
  summarize(query: string, results: readonly SummaryInput[], signal?: AbortSignal): Promise<string>;
}

/** What every summarizer says when nothing matched. */
export function noMatchSummary(query: string): string {
  return `No discussions matched "${query}". Try broader or different words.`;
}
