/**
 * Filtered search against unfiltered search on the kept index, in this process: SearchCore
 * (the service's own search code: the index query, paging, snippets and, for semantic, the
 * summary) with the query embeddings cached, so the figures are the engine's filtered path.
 * Per query, the unfiltered call and the same call with each filter run back to back, so
 * background load falls on all three alike. The filters are picked from the index itself:
 *
 * - selective: one subforum holding about 1% of the posts (the one nearest that share), or, when
 *   no subforum is within a factor of 3 of it, the calendar month nearest that share;
 * - broad: about the newest half of the posts, as a start date (the first of the month by which
 *   half are older; months, because Weaviate answers a histogram with one call per bucket).
 *
 * Every page is checked: each hit must satisfy its filter, and a page may be short only when the
 * filter matches fewer posts than the limit (a post-filter over a vector top k would show here).
 */
import { randomBytes } from "node:crypto";
import { loadConfig } from "../../src/config.js";
import { PageTokens } from "../../src/core/page-token.js";
import type { FilterParams } from "../../src/core/request-rules.js";
import type { SearchPage } from "../../src/core/search.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import { cachedEmbedder } from "../../src/enrich/query-cache.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { table } from "../eval/format.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import { measuredWhen } from "./machine.js";
import type { StoredSection } from "./results-store.js";
import { loadBenchQueries } from "./search-queries.js";
import { fixed, median, msSince, percentile } from "./stats.js";

/** The filters compared with no filter. */
export type FilterKind = "none" | "selective" | "broad";
const KINDS: readonly FilterKind[] = ["none", "selective", "broad"];
const METHODS = ["semantic", "vector"] as const;
/** Share of the posts the selective filter aims at. */
const SELECTIVE_SHARE = 0.01;
const LIMIT = 10;

/** One method under one filter. */
export interface FilteredRow {
  method: (typeof METHODS)[number];
  filter: FilterKind;
  calls: number;
  p50: number;
  p95: number;
  /** p50 over the unfiltered p50 of the same method (1 for "none"). */
  ratio: number;
  /** Pages shorter than the limit although the filter matches more posts. */
  shortPages: number;
  /** Hits that do not satisfy their filter. */
  wrongHits: number;
}

/** What the part stores. */
export interface FilteredResult {
  backend: string;
  posts: number;
  /** Set when the index is a replicated store (run.ts --replica). */
  replica?: boolean;
  /** One subforum, or (when no subforum is near the share) one calendar month. */
  selective: { subforum?: string; startDate?: string; endDate?: string; matches: number };
  broad: { startDate: string; matches: number };
  queries: number;
  rounds: number;
  rows: FilteredRow[];
}

const EMPTY_FILTER: FilterParams = {
  startDate: "",
  endDate: "",
  sources: [],
  subforums: [],
  excludeSubforums: [],
  authors: [],
  sentiments: [],
  leadTypes: [],
};

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The subforum nearest SELECTIVE_SHARE of the posts, and the month from which about half of them are newer. */
async function pickFilters(index: SearchIndex, posts: number): Promise<Pick<FilteredResult, "selective" | "broad">> {
  const agg = await index.aggregate!({
    groupBy: ["subforum"],
    topN: 1000,
    histogram: { interval: "month", maxBuckets: 10_000 },
  });
  const target = posts * SELECTIVE_SHARE;
  const off = (n: number) => Math.abs(Math.log(n / target));
  const subforums = agg.groups[0]!.values;
  const sub = subforums.reduce<(typeof subforums)[number] | undefined>(
    (best, v) => (best === undefined || off(v.count) < off(best.count) ? v : best),
    undefined,
  );
  // No subforum within a factor of 3 of the share (an index of few subforums): one month instead.
  const month = agg.buckets.reduce((best, b) => (b.count > 0 && off(b.count) < off(best.count) ? b : best));
  const selective: FilteredResult["selective"] =
    sub !== undefined && off(sub.count) <= Math.log(3)
      ? { subforum: sub.value, matches: sub.count }
      : {
          startDate: day(month.start),
          endDate: day(Date.UTC(new Date(month.start).getUTCFullYear(), new Date(month.start).getUTCMonth() + 1, 0)),
          matches: month.count,
        };
  // The first month by which half of the posts are older: the newest half starts there.
  let older = 0;
  let split = agg.buckets[0]!;
  for (const b of agg.buckets) {
    if (older >= posts / 2) break;
    split = b;
    older += b.count;
  }
  const matches = agg.buckets.filter((b) => b.start >= split.start).reduce((s, b) => s + b.count, 0);
  return { selective, broad: { startDate: day(split.start), matches } };
}

/** Runs the part against `target`. */
export async function benchFiltered(
  target: BackendTarget,
  opts: { rounds: number; queries: number; replica?: boolean },
  log: (line: string) => void,
): Promise<FilteredResult> {
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const queries = loadBenchQueries().slice(0, opts.queries);
  const embedder = cachedEmbedder(await startUseEmbedder(1), queries.length + 16);
  const index = await indexFor(target);
  try {
    for (let i = 0; i < queries.length; i += 16) await embedder.embed(queries.slice(i, i + 16));
    const info = await index.open(embedder.model, embedder.dimensions);
    const picked = await pickFilters(index, info.count);
    log(
      `filtered ${target.backend}: selective ${JSON.stringify(picked.selective)}, broad from ${picked.broad.startDate} (${picked.broad.matches} posts)`,
    );
    const filters: Record<FilterKind, FilterParams | undefined> = {
      none: undefined,
      selective:
        picked.selective.subforum !== undefined
          ? { ...EMPTY_FILTER, subforums: [picked.selective.subforum] }
          : { ...EMPTY_FILTER, startDate: picked.selective.startDate!, endDate: picked.selective.endDate! },
      broad: { ...EMPTY_FILTER, startDate: picked.broad.startDate },
    };
    const matches: Record<FilterKind, number> = {
      none: info.count,
      selective: picked.selective.matches,
      broad: picked.broad.matches,
    };
    const broadFrom = Date.parse(`${picked.broad.startDate}T00:00:00Z`);
    const sel = picked.selective;
    const selFrom = sel.startDate === undefined ? 0 : Date.parse(`${sel.startDate}T00:00:00Z`);
    const selTo = sel.endDate === undefined ? 0 : Date.parse(`${sel.endDate}T23:59:59.999Z`);
    const holds = (kind: FilterKind, post: { subforum: string; created: number }): boolean => {
      if (kind === "none") return true;
      if (kind === "broad") return post.created >= broadFrom;
      return sel.subforum !== undefined
        ? post.subforum === sel.subforum
        : post.created >= selFrom && post.created <= selTo;
    };
    const core = new SearchCore({
      index,
      embedder,
      summarizer: createExtractiveSummarizer(),
      hybridAlpha: config.hybridAlpha,
      shortQueryAlpha: config.shortQueryAlpha,
      pageTokens: new PageTokens(randomBytes(32)),
    });
    const signal = new AbortController().signal;
    const key = (m: string, k: FilterKind) => `${m}:${k}`;
    const times = new Map<string, number[]>();
    const short = new Map<string, number>();
    const wrong = new Map<string, number>();
    // Pass 0 warms the engine's caches for every filter; it is not timed.
    for (let r = 0; r <= opts.rounds; r++) {
      for (const query of queries) {
        for (const method of METHODS) {
          for (const kind of KINDS) {
            const params = { query, limit: LIMIT, subforums: [], pageToken: "", startDate: "", endDate: "" };
            const t0 = process.hrtime.bigint();
            const page: SearchPage =
              method === "semantic"
                ? await core.semantic({ ...params, filter: filters[kind] }, signal)
                : await core.vector({ ...params, filter: filters[kind] }, signal);
            const ms = msSince(t0);
            if (r === 0) continue;
            const k = key(method, kind);
            times.set(k, [...(times.get(k) ?? []), ms]);
            // A semantic page holds what matched either side; a vector page is always full.
            const expected = method === "vector" ? Math.min(LIMIT, matches[kind]) : undefined;
            if (expected !== undefined && page.hits.length < expected) short.set(k, (short.get(k) ?? 0) + 1);
            const bad = page.hits.filter((h) => !holds(kind, h.post)).length;
            if (bad > 0) wrong.set(k, (wrong.get(k) ?? 0) + bad);
          }
        }
      }
    }
    const rows: FilteredRow[] = [];
    for (const method of METHODS) {
      const base = median(times.get(key(method, "none"))!);
      for (const kind of KINDS) {
        const t = times.get(key(method, kind))!;
        rows.push({
          method,
          filter: kind,
          calls: t.length,
          p50: median(t),
          p95: percentile(t, 95),
          ratio: median(t) / base,
          shortPages: short.get(key(method, kind)) ?? 0,
          wrongHits: wrong.get(key(method, kind)) ?? 0,
        });
        log(
          `filtered ${target.backend} ${method} ${kind}: p50 ${fixed(median(t))} ms (${fixed(median(t) / base, 2)}x) over ${t.length} calls`,
        );
      }
    }
    return {
      backend: target.backend,
      posts: info.count,
      ...(opts.replica ? { replica: true } : {}),
      ...picked,
      queries: queries.length,
      rounds: opts.rounds,
      rows,
    };
  } finally {
    await index.close();
    await embedder.close();
  }
}

/** The report's explanation of the part. */
export const FILTERED_TEXT = [
  "test/bench/filtered.ts: SearchCore's SemanticSearch and VectorSearch (limit 10) in the benchmark process over the kept index,",
  "query embeddings cached, each query unfiltered and then with each filter back to back (one untimed warm-up pass). Selective:",
  "the one subforum nearest 1% of the posts (a calendar month when no subforum is within 3x of it); broad: a start date (a month's first day) with about half of the posts newer. Every page is checked:",
  "no hit outside its filter, no vector page shorter than the limit while the filter matches more. Issue 51's goal: each",
  "filtered p50 within 1.3x of the unfiltered one, at ~93k real posts and at 1M replicated.",
];

/** One stored run as markdown. */
export function filteredSection(s: StoredSection<FilteredResult>): string {
  const d = s.data;
  const share = (n: number) => `${fixed((100 * n) / d.posts, 1)}%`;
  return [
    `### ${d.backend}, ${d.posts.toLocaleString("en-US")} posts${d.replica ? " (replicated)" : ""}`,
    "",
    `${measuredWhen(s.machine, s.durationS)}; ${d.queries} queries x ${d.rounds} passes. Selective: ${d.selective.subforum !== undefined ? `subforum ${d.selective.subforum}` : `${d.selective.startDate}..${d.selective.endDate}`} (${d.selective.matches.toLocaleString("en-US")} posts, ${share(d.selective.matches)}); broad: from ${d.broad.startDate} (${d.broad.matches.toLocaleString("en-US")} posts, ${share(d.broad.matches)}).`,
    "",
    table(
      ["method", "filter", "calls", "p50 ms", "p95 ms", "p50 / unfiltered", "short pages", "hits outside the filter"],
      d.rows.map((r) => [
        r.method,
        r.filter,
        String(r.calls),
        fixed(r.p50),
        fixed(r.p95),
        r.filter === "none" ? "-" : `${fixed(r.ratio, 2)}x`,
        String(r.shortPages),
        String(r.wrongHits),
      ]),
    ),
  ].join("\n");
}
