/**
 * Which RPCs are metered, and under which operation name usage is recorded. Anything not listed
 * (UsageService, health, reflection) is free.
 */

/** The metered operations: the four queries, managing monitors (every MonitorService call), and AggregatePosts. */
export const OPERATIONS = ["semantic_search", "vector_search", "trends", "leads", "monitors", "aggregate"] as const;
/** One of {@link OPERATIONS}. */
export type Operation = (typeof OPERATIONS)[number];

const BY_METHOD: ReadonlyMap<string, Operation> = new Map([
  ["threadsight.v1.SearchService/SemanticSearch", "semantic_search"],
  ["threadsight.v1.SearchService/VectorSearch", "vector_search"],
  ["threadsight.v1.TrendService/ListTrends", "trends"],
  ["threadsight.v1.LeadService/FindLeads", "leads"],
  ["threadsight.v1.InsightsService/AggregatePosts", "aggregate"],
]);

/** Every MonitorService call counts, under one name. */
const METERED_SERVICES: ReadonlyMap<string, Operation> = new Map([["threadsight.v1.MonitorService", "monitors"]]);

/** The operation of an RPC ("<service typeName>/<method name>"), or undefined when it is free. */
export function operationOf(serviceTypeName: string, methodName: string): Operation | undefined {
  return BY_METHOD.get(`${serviceTypeName}/${methodName}`) ?? METERED_SERVICES.get(serviceTypeName);
}
