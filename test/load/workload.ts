/**
 * What the load sends: the four metered operations with their RPC, REST route, share of the mix
 * and request bodies. Bodies vary (query texts from query-feed.ts, several date windows, limits
 * and scores).
 */

/** The four metered operations, named as the usage report names them. */
export type Operation = "semantic_search" | "vector_search" | "trends" | "leads";

/** How an operation is called over gRPC and REST, and its share of the mix. */
export interface OperationSpec {
  /** ghz --call form: package.Service/Method. */
  rpc: string;
  /** REST route (POST, JSON body). */
  path: string;
  /** Share of the sustained mix (the shares sum to 1). */
  weight: number;
}

/**
 * The mix: searches dominate, as they would for a search API; trends and leads are rarer and
 * heavier per call (trends scans a date window, leads classifies every candidate).
 */
export const OPERATIONS: Readonly<Record<Operation, OperationSpec>> = {
  semantic_search: {
    rpc: "threadsight.v1.SearchService/SemanticSearch",
    path: "/api/v1/search/semantic",
    weight: 0.35,
  },
  vector_search: { rpc: "threadsight.v1.SearchService/VectorSearch", path: "/api/v1/search/vector", weight: 0.3 },
  trends: { rpc: "threadsight.v1.TrendService/ListTrends", path: "/api/v1/trends", weight: 0.15 },
  leads: { rpc: "threadsight.v1.LeadService/FindLeads", path: "/api/v1/leads", weight: 0.2 },
};

/** Every operation, in report order. */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as Operation[];

// Windows that hold sample posts (Reddit 2013, Stack Exchange 2009-2017, Hacker News 2015-2016).
const SEARCH_WINDOWS: readonly [string, string][] = [
  ["2013-01-01", "2013-12-31"],
  ["2015-01-01", "2016-12-31"],
  ["2010-01-01", "2017-12-31"],
  ["2016-01-01", "2016-06-30"],
];
// Trends windows are at most 731 days (request rules).
const TREND_WINDOWS: readonly [string, string][] = [
  ["2016-01-01", "2016-03-31"],
  ["2015-06-01", "2016-05-31"],
  ["2013-01-01", "2013-12-31"],
  ["2015-01-01", "2016-12-31"],
  ["2016-07-01", "2016-07-31"],
];

/**
 * `count` request bodies for `op`, using `queries` (the caller hands each stream its own slice).
 * Field names are the proto's, which both the REST contract and ghz's protojson accept.
 */
export function requestBodies(op: Operation, queries: readonly string[], count: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const query = queries[i % queries.length] ?? "how do you price a SaaS product";
    if (op === "semantic_search") out.push({ query, limit: 10 });
    else if (op === "vector_search") {
      const [start, end] = SEARCH_WINDOWS[i % SEARCH_WINDOWS.length]!;
      out.push({ query, limit: 10, start_date: start, end_date: end });
    } else if (op === "trends") {
      const [start, end] = TREND_WINDOWS[i % TREND_WINDOWS.length]!;
      out.push({ start_date: start, end_date: end, limit: 5 + (i % 3) * 5 });
    } else out.push({ query, limit: 10, min_score: [40, 50, 60][i % 3]! });
  }
  return out;
}
