/**
 * The monitors the monitor benchmark makes active: a fixed mix of the three kinds built from real
 * text (the SemEval-2016 forum questions the search benchmark sends, then Hacker News titles the
 * benchmark's posts do not include), a third of them with a common filter, each with one webhook.
 * Keyword expressions are made from a text's own longest words, in the shapes users write:
 * a phrase, AND, OR with NOT, and field terms.
 */

import { wordsOf } from "../../src/core/keyword-words.js";
import { LEAD_TYPES } from "../../src/model/post.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import type { MonitorSpec } from "../../src/monitors/monitor-spec.js";
import { DEFAULT_MIN_RELEVANCE, DEFAULT_MIN_SCORE } from "../../src/monitors/monitor-spec.js";
import { hnCorpusPosts } from "../fakes/corpus-posts.js";
import { loadBenchQueries } from "./search-queries.js";

/** Hacker News stories skipped before titles are taken: the ingest slices read the corpus from its start. */
const HN_SKIP = 5_000;

/** At least `n` distinct real texts: the forum questions first, then Hacker News titles. */
export async function monitorTexts(n: number): Promise<string[]> {
  const out = loadBenchQueries();
  const seen = new Set(out);
  if (out.length < n) {
    for (const p of (await hnCorpusPosts(HN_SKIP + 2 * n)).slice(HN_SKIP)) {
      const t = p.title.replace(/\s+/g, " ").trim();
      if (t.length < 8 || seen.has(t) || wordsOf(t).length < 2) continue;
      seen.add(t);
      out.push(t);
      if (out.length >= n) break;
    }
  }
  if (out.length < n) throw new Error(`only ${out.length} distinct texts for ${n} monitors`);
  return out.slice(0, n);
}

/** The two longest words of a text (earlier first on ties), in text order; bare words only. */
function keyWords(text: string): [string, string] {
  const words = [...new Set(wordsOf(text).filter((w) => /^[\p{L}\p{N}]+$/u.test(w)))];
  const ranked = words
    .map((w, i) => ({ w, i }))
    .sort((a, b) => b.w.length - a.w.length || a.i - b.i)
    .slice(0, 2)
    .sort((a, b) => a.i - b.i);
  const a = ranked[0]?.w ?? "startup";
  return [a, ranked[1]?.w ?? a];
}

/** A keyword expression in one of four shapes, chosen by `i`. */
function expression(text: string, i: number): string {
  const [a, b] = keyWords(text);
  switch (i % 4) {
    case 0:
      return `"${a} ${b}"`;
    case 1:
      return `${a} AND ${b}`;
    case 2:
      return `(${a} OR ${b}) NOT spam`;
    default:
      return `title:${a} ${b}`;
  }
}

/** The common filter of monitor `i`: every third has one, in turn a source, upvotes, sentiment or subforum rule. */
function filterOf(i: number): MonitorSpec["filter"] {
  const f = emptyFilter();
  if (i % 3 !== 0) return f;
  switch ((i / 3) % 4) {
    case 0:
      return { ...f, sources: ["hackernews", "reddit"] };
    case 1:
      return { ...f, minUpvotes: 5 };
    case 2:
      return { ...f, sentiments: ["negative", "neutral"] };
    default:
      return { ...f, excludeSubforums: ["funny", "pics"] };
  }
}

/**
 * `n` monitor specs over `texts`: kinds in turn search, search, leads, keywords; default
 * thresholds (min_relevance and min_score as a new monitor gets them); one webhook to `url`.
 */
export function monitorMix(texts: readonly string[], n: number, url: string): MonitorSpec[] {
  const out: MonitorSpec[] = [];
  for (let i = 0; i < n; i++) {
    const text = texts[i % texts.length]!;
    const kind = (["search", "search", "leads", "keywords"] as const)[i % 4]!;
    const filter = filterOf(i);
    out.push({
      name: `bench ${kind} ${i}`,
      kind,
      query: kind === "keywords" ? expression(text, i >> 2) : text.slice(0, 500),
      minRelevance: DEFAULT_MIN_RELEVANCE,
      minScore: DEFAULT_MIN_SCORE,
      filter: kind === "leads" && i % 8 === 2 ? { ...filter, leadTypes: [LEAD_TYPES[(i >> 3) % 5]!] } : filter,
      channels: [{ type: "webhook", url, email: "", emailMode: "instant" }],
      paused: false,
    });
  }
  return out;
}
