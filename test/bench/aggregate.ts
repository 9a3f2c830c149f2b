/**
 * AggregatePosts latency on the kept index, in this process (the engine call and the query's
 * embedding, no transport): a one-year weekly histogram (with counts by subforum) for a query,
 * and the same without a query, over the 365 UTC days ending on the newest post's day. Query
 * vectors are embedded once before timing; each figure is over `rounds` x `queries` calls.
 */
import { AGGREGATE_RULES } from "../../src/core/aggregate.js";
import { minSimilarityFor } from "../../src/core/relevance-threshold.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { AggregateQuery } from "../../src/index/aggregate-query.js";
import { table } from "../eval/format.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import { measuredWhen } from "./machine.js";
import type { StoredSection } from "./results-store.js";
import { loadBenchQueries } from "./search-queries.js";
import { fixed, median, msSince, percentile } from "./stats.js";

const DAY = 86_400_000;

/** One timed configuration. */
export interface AggregateRow {
  op: "year-weekly-query" | "year-weekly-all";
  calls: number;
  p50: number;
  p95: number;
  /** Mean posts in the set per call. */
  meanTotal: number;
}

/** What the part stores. */
export interface AggregateBenchResult {
  backend: string;
  posts: number;
  /** Set when the index is a replicated store (run.ts --replica). */
  replica?: boolean;
  window: { from: string; to: string };
  minSimilarity: number;
  rows: AggregateRow[];
}

/** Runs the part against `target`. */
export async function benchAggregate(
  target: BackendTarget,
  opts: { rounds: number; queries: number; replica?: boolean },
  log: (line: string) => void,
): Promise<AggregateBenchResult> {
  const index = await indexFor(target);
  const embedder = await startUseEmbedder(1);
  try {
    await index.open(embedder.model, embedder.dimensions);
    const posts = await index.count();
    // The newest post's day: a one-year window that surely holds posts.
    const newest = await index.aggregate!({
      groupBy: [],
      topN: 1,
      histogram: { interval: "month", maxBuckets: 10_000 },
    });
    const lastMonth = newest.buckets.at(-1)?.start ?? Date.now();
    const to = lastMonth + 31 * DAY - 1;
    const from = to - 365 * DAY + 1;
    const queries = loadBenchQueries().slice(0, opts.queries);
    const vectors = await embedder.embed(queries);
    const minSimilarity = minSimilarityFor(embedder.model);
    const base: AggregateQuery = {
      filter: { createdFrom: from, createdTo: to },
      groupBy: ["subforum"],
      topN: 10,
      histogram: { interval: "week", from, to, maxBuckets: AGGREGATE_RULES.maxBuckets },
    };
    const rows: AggregateRow[] = [];
    for (const op of ["year-weekly-query", "year-weekly-all"] as const) {
      const times: number[] = [];
      let totals = 0;
      for (let r = 0; r < opts.rounds; r++) {
        for (const v of op === "year-weekly-query" ? vectors : vectors.slice(0, 3)) {
          const t0 = process.hrtime.bigint();
          const res = await index.aggregate!(
            op === "year-weekly-query" ? { ...base, near: { vector: v, minSimilarity } } : base,
          );
          times.push(msSince(t0));
          totals += res.total;
        }
      }
      rows.push({
        op,
        calls: times.length,
        p50: median(times),
        p95: percentile(times, 95),
        meanTotal: totals / times.length,
      });
      log(`aggregate ${target.backend} ${op}: p50 ${fixed(median(times))} ms over ${times.length} calls`);
    }
    return {
      backend: target.backend,
      posts,
      ...(opts.replica ? { replica: true } : {}),
      window: { from: new Date(from).toISOString().slice(0, 10), to: new Date(to).toISOString().slice(0, 10) },
      minSimilarity,
      rows,
    };
  } finally {
    await index.close();
    await embedder.close();
  }
}

/** The report's explanation of the part. */
export const AGGREGATE_TEXT = [
  "test/bench/aggregate.ts: AggregatePosts' engine call in the benchmark process over the kept index (no transport, the query",
  "embedded before timing): a one-year weekly histogram with counts by subforum, for a query (every post at or above the",
  "relevance threshold) and without one. Issue 51's goal is p50 <= 150 ms for the query case at 1M posts.",
];

/** One stored run as markdown. */
export function aggregateSection(s: StoredSection<AggregateBenchResult>): string {
  const d = s.data;
  return [
    `### ${d.backend}, ${d.posts.toLocaleString("en-US")} posts${d.replica ? " (replicated)" : ""}`,
    "",
    `${measuredWhen(s.machine, s.durationS)}; window ${d.window.from}..${d.window.to}; threshold ${d.minSimilarity}.`,
    "",
    table(
      ["call", "calls", "p50 ms", "p95 ms", "posts in the set (mean)"],
      d.rows.map((r) => [r.op, String(r.calls), fixed(r.p50), fixed(r.p95), fixed(r.meanTotal, 0)]),
    ),
  ].join("\n");
}
