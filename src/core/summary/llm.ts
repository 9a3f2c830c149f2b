/**
 * ai_summary written by an LLM behind an OpenAI-compatible chat-completions endpoint
 * (SUMMARY_LLM_URL), from the same material as the themed summary (summary-themes.ts): how many
 * posts matched, the themes with their posts, spans and sentiment, and the matched posts
 * themselves, numbered by their position in the response. The answer must cite them as [n]; one
 * that cites nothing, or cites a number that is not a post it was shown, is refused. Any failure
 * (timeout, HTTP error, empty or malformed answer, a refused answer) falls back to the themed
 * summary, so a slow or wayward model never fails a search.
 */

import type { Summarizer, SummaryContext, SummaryInput } from "./summarizer.js";
import { noMatchSummary } from "./summarizer.js";
import type { SummaryMaterial } from "./summary-themes.js";
import { summaryMaterial } from "./summary-themes.js";
import { monthOf, renderSummary } from "./themed-summary.js";

/** Settings of the LLM summarizer. */
export interface LlmSummarizerOptions {
  /** Base URL; the client posts to `${baseUrl}/v1/chat/completions`. */
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
  /** Longest answer asked for, in tokens (default 220). */
  maxTokens?: number;
  /** Called with the reason whenever the fallback is used (for logs and metrics). */
  onFallback?: (reason: string) => void;
}

/** Matched posts shown to the model at most, and how much of each body. */
const RESULTS_SHOWN = 6;
const EXCERPT_CHARS = 500;

/** The positions (1-based) of the posts the prompt shows: the first matched ones. */
export function shownPosts(material: SummaryMaterial): number[] {
  return material.matched.slice(0, RESULTS_SHOWN).map((i) => i + 1);
}

function prompt(query: string, results: readonly SummaryInput[], m: SummaryMaterial): string {
  const floor = m.floor !== undefined ? ` with relevance ${m.floor.toFixed(2)} or more` : "";
  const themes = m.themes.map((t, i) => {
    const span = t.span !== undefined ? `, ${monthOf(t.span.first)} to ${monthOf(t.span.last)}` : "";
    const mix =
      t.sentiment !== undefined
        ? `, ${t.sentiment.positive} positive, ${t.sentiment.neutral} neutral, ${t.sentiment.negative} negative`
        : "";
    return `Theme ${i + 1}${t.label !== "" ? ` (${t.label})` : ""}: posts ${t.members.map((n) => `[${n + 1}]`).join(" ")}${span}${mix}.`;
  });
  const posts = shownPosts(m).map((n) => {
    const r = results[n - 1]!;
    const when = r.created !== undefined && r.created > 0 ? `, ${monthOf(r.created)}` : "";
    return `[${n}] (${r.subforum}${when}) ${r.title}\n${r.content.slice(0, EXCERPT_CHARS)}`;
  });
  return [
    `Question: ${query}`,
    `${m.matchedAtLeast ? "At least " : ""}${m.matchedCount} posts matched${floor}.`,
    ...themes,
    "",
    "Posts:",
    posts.join("\n\n"),
  ].join("\n");
}

const SYSTEM =
  "You summarise forum discussions for market researchers. Answer the question in 2 to 4 plain " +
  "sentences using only the numbered posts given: say what the themes are and what the posts say. " +
  "Cite posts as [n] after the sentence that uses them. Do not invent facts, names or numbers that " +
  "are not in the posts.";

/**
 * Checks the model's answer against the posts it was shown (1-based positions); returns it
 * cleaned, or undefined when it must not be shown: too short or long, no citation, or a citation
 * of anything else.
 */
export function acceptSummary(text: string, shown: readonly number[]): string | undefined {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length < 20 || clean.length > 1200) return undefined;
  const cited = [...clean.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  if (cited.length === 0 || cited.some((n) => !shown.includes(n))) return undefined;
  // A bracket that is not a plain number ("[n]", "[1, 2]") cites nothing checkable.
  if (/\[(?!\d+\])[^\]]*\]/.test(clean)) return undefined;
  return clean;
}

/** Creates the LLM summarizer. */
export function createLlmSummarizer(opts: LlmSummarizerOptions): Summarizer {
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/v1/chat/completions`;
  return {
    kind: "llm",
    async summarize(query, results, signal, context: SummaryContext = {}) {
      if (results.length === 0) return noMatchSummary(query);
      const material = summaryMaterial(query, results, context);
      const extractive = renderSummary(query, results, material);
      // Nothing matched: there is nothing the model could cite.
      if (material.matched.length === 0) return extractive;
      const fallback = (reason: string): string => {
        opts.onFallback?.(reason);
        return extractive;
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
            max_tokens: opts.maxTokens ?? 220,
            messages: [
              { role: "system", content: SYSTEM },
              { role: "user", content: prompt(query, results, material) },
            ],
          }),
        });
        if (!res.ok) return fallback(`http ${res.status}`);
        const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== "string") return fallback("malformed response");
        return acceptSummary(content, shownPosts(material)) ?? fallback("rejected answer");
      } catch (err) {
        // The caller's own cancellation is not a model failure: let it propagate.
        if (signal?.aborted === true) throw err;
        return fallback((err as Error).name === "TimeoutError" ? "timeout" : "request failed");
      }
    },
  };
}
