/**
 * The default ai_summary, written from {@link summaryMaterial}: one sentence saying how many posts
 * matched above the relevance floor and into how many themes the page's matched posts fall, then
 * one sentence per theme with its label, its posts (by position), their time span and sentiment
 * mix, and the theme's most representative sentence quoted and cited as [n]. Nothing is
 * generated: each figure and quote can be read back from the results.
 */
import type { SentimentLabel } from "../../model/post.js";
import type { Summarizer, SummaryContext, SummaryInput } from "./summarizer.js";
import { noMatchSummary } from "./summarizer.js";
import type { SummaryMaterial, Theme } from "./summary-themes.js";
import { summaryMaterial } from "./summary-themes.js";
import { quoted } from "./text-units.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const COUNT_WORDS = ["no", "one", "two", "three"];

/** "Mar 2014", in UTC. */
export function monthOf(epochMs: number): string {
  const d = new Date(epochMs);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

function mixText(mix: Record<SentimentLabel, number>): string {
  const parts = (["positive", "neutral", "negative"] as const).filter((l) => mix[l] > 0).map((l) => `${mix[l]} ${l}`);
  return listed(parts);
}

function spanText(span: NonNullable<Theme["span"]>): string {
  const a = monthOf(span.first);
  const b = monthOf(span.last);
  return a === b ? `in ${a}` : `from ${a} to ${b}`;
}

/** `On pricing tiers, 4 posts (1, 3, 5 and 8) from Mar 2014 to Jun 2016, 3 neutral and 1 negative: "..." [3].` */
function themeSentence(theme: Theme): string {
  const posts = `${plural(theme.members.length, "post")} (${listed(theme.members.map((i) => String(i + 1)))})`;
  const head = theme.label === "" ? posts.charAt(0).toUpperCase() + posts.slice(1) : `On ${theme.label}, ${posts}`;
  const span = theme.span !== undefined ? ` ${spanText(theme.span)}` : "";
  const mix = theme.sentiment !== undefined ? `, ${mixText(theme.sentiment)}` : "";
  if (theme.quote === undefined) return `${head}${span}${mix}.`;
  const says = theme.quote.fromTitle ? " one is titled" : "";
  return `${head}${span}${mix}:${says} ${quoted(theme.quote.text)} [${theme.quote.result + 1}].`;
}

function opening(query: string, m: SummaryMaterial): string {
  const count = `${m.matchedAtLeast ? "At least " : ""}${plural(m.matchedCount, "post")}`;
  const how = m.floor !== undefined ? ` with relevance ${m.floor.toFixed(2)} or more` : "";
  const themes = m.themes.length > 1 ? `${COUNT_WORDS[m.themes.length] ?? m.themes.length} themes` : "";
  const head = `${count} matched "${query}"${how}`;
  if (m.matched.length < m.matchedCount) {
    return themes === ""
      ? `${head}; this page holds ${m.matched.length} of them.`
      : `${head}; the ${m.matched.length} on this page fall into ${themes}.`;
  }
  return themes === "" ? `${head}.` : `${head}, in ${themes}.`;
}

/** Renders the material as the summary text. Exported for the LLM fallback and the evaluation. */
export function renderSummary(query: string, results: readonly SummaryInput[], m: SummaryMaterial): string {
  if (results.length === 0) return noMatchSummary(query);
  if (m.matched.length === 0) {
    const floor = m.floor !== undefined ? ` with relevance ${m.floor.toFixed(2)} or more` : "";
    return `No post on this page matched "${query}"${floor}; the nearest is ${quoted(results[0]!.title)} [1].`;
  }
  return [opening(query, m), ...m.themes.map(themeSentence)].join(" ");
}

/** The themed summary of a page of results. */
export function themedSummary(query: string, results: readonly SummaryInput[], context: SummaryContext = {}): string {
  return renderSummary(query, results, summaryMaterial(query, results, context));
}

/** The default summarizer: themed, and extractive (it quotes, it does not generate). */
export function createExtractiveSummarizer(): Summarizer {
  return {
    kind: "extractive",
    async summarize(query, results, _signal, context) {
      return themedSummary(query, results, context);
    },
  };
}
