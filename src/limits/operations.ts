/**
 * Which RPCs are metered, and under which operation name usage is recorded. Anything not listed
 * (UsageService, health, reflection) is free.
 */

/**
 * The metered operations: the four queries, managing monitors (every MonitorService call),
 * reading posts (GetPosts; ExportPosts, one call per started block of posts, see
 * {@link STREAMED_UNITS}) and AggregatePosts.
 */
export const OPERATIONS = [
  "semantic_search",
  "vector_search",
  "trends",
  "leads",
  "monitors",
  "get_posts",
  "export_posts",
  "aggregate",
] as const;
/** One of {@link OPERATIONS}. */
export type Operation = (typeof OPERATIONS)[number];

const BY_METHOD: ReadonlyMap<string, Operation> = new Map([
  ["threadsight.v1.SearchService/SemanticSearch", "semantic_search"],
  ["threadsight.v1.SearchService/VectorSearch", "vector_search"],
  ["threadsight.v1.TrendService/ListTrends", "trends"],
  ["threadsight.v1.LeadService/FindLeads", "leads"],
  ["threadsight.v1.PostService/GetPosts", "get_posts"],
  ["threadsight.v1.PostService/ExportPosts", "export_posts"],
  ["threadsight.v1.InsightsService/AggregatePosts", "aggregate"],
]);

/** How a streamed operation is charged: one call per started block of `unitsPerCall` units. */
export interface StreamedUnits {
  unitsPerCall: number;
  /** The units one response message carries. */
  unitsOf(message: unknown): number;
}

/**
 * Streaming operations charged by what they send rather than once: an export costs one call
 * per started 1,000 posts (the first block is admitted before the stream starts).
 */
export const STREAMED_UNITS: ReadonlyMap<Operation, StreamedUnits> = new Map([
  [
    "export_posts",
    {
      unitsPerCall: 1_000,
      unitsOf: (message: unknown) => (message as { posts?: readonly unknown[] }).posts?.length ?? 0,
    },
  ],
]);

/** Every MonitorService call counts, under one name. */
const METERED_SERVICES: ReadonlyMap<string, Operation> = new Map([["threadsight.v1.MonitorService", "monitors"]]);

/** The operation of an RPC ("<service typeName>/<method name>"), or undefined when it is free. */
export function operationOf(serviceTypeName: string, methodName: string): Operation | undefined {
  return BY_METHOD.get(`${serviceTypeName}/${methodName}`) ?? METERED_SERVICES.get(serviceTypeName);
}
