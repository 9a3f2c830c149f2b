/**
 * ai_summary written by an LLM behind an OpenAI-compatible chat-completions endpoint
 * (SUMMARY_LLM_URL). The model sees only the top results, numbered, and must cite them as [n].
 * Any failure (timeout, HTTP error, empty or malformed answer, a citation of a result that does
 * not exist) falls back to the extractive summary, so a slow model never fails a search.
 */
import { extractiveSummary } from "./extractive.js";
import type { Summarizer, SummaryInput } from "./summarizer.js";
import { noMatchSummary } from "./summarizer.js";

/** Settings of the LLM summarizer. */
export interface LlmSummarizerOptions {
  /** Base URL; the client posts to `${baseUrl}/v1/chat/completions`. */
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
  /** Called with the reason whenever the fallback is used (for logs and metrics). */
  onFallback?: (reason: string) => void;
}

const RESULTS_SHOWN = 5;
const EXCERPT_CHARS = 600;

function prompt(query: string, results: readonly SummaryInput[]): string {
  const listed = results
    .slice(0, RESULTS_SHOWN)
    .map((r, i) => `[${i + 1}] (${r.subforum}) ${r.title}\n${r.content.slice(0, EXCERPT_CHARS)}`)
    .join("\n\n");
  return `Question: ${query}\n\nForum posts:\n${listed}`;
}

const SYSTEM =
  "You summarise forum discussions for market researchers. Answer the question in 2 to 4 plain " +
  "sentences using only the numbered posts given. Cite posts as [n] after the sentence that uses " +
  "them. Do not invent facts, names or numbers that are not in the posts.";

/** Checks the model's answer; returns it cleaned, or undefined when it must not be shown. */
export function acceptSummary(text: string, resultCount: number): string | undefined {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length < 20 || clean.length > 1200) return undefined;
  const cited = [...clean.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  const limit = Math.min(resultCount, RESULTS_SHOWN);
  if (cited.some((n) => n < 1 || n > limit)) return undefined;
  return clean;
}

/** Creates the LLM summarizer. */
export function createLlmSummarizer(opts: LlmSummarizerOptions): Summarizer {
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/v1/chat/completions`;
  return {
    kind: "llm",
    async summarize(query, results, signal) {
      if (results.length === 0) return noMatchSummary(query);
      const fallback = (reason: string): string => {
        opts.onFallback?.(reason);
        return extractiveSummary(query, results);
      };
      const signals = [AbortSignal.timeout(opts.timeoutMs), ...(signal !== undefined ? [signal] : [])];
      try {
        const res = await fetch(url, {
          method: "POST",
          signal: AbortSignal.any(signals),
          headers: {
            "content-type": "application/json",
            ...(opts.apiKey !== undefined ? { authorization: `Bearer ${opts.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: opts.model,
            temperature: 0.2,
            max_tokens: 220,
            messages: [
              { role: "system", content: SYSTEM },
              { role: "user", content: prompt(query, results) },
            ],
          }),
        });
        if (!res.ok) return fallback(`http ${res.status}`);
        const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== "string") return fallback("malformed response");
        return acceptSummary(content, results.length) ?? fallback("rejected answer");
      } catch (err) {
        // The caller's own cancellation is not a model failure: let it propagate.
        if (signal?.aborted === true) throw err;
        return fallback((err as Error).name === "TimeoutError" ? "timeout" : "request failed");
      }
    },
  };
}
