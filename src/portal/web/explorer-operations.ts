/**
 * The operations the explorer offers, derived from the proto's google.api.http rules and the
 * metered-operation table, so a new paid RPC with a REST route appears without page changes.
 */
import { LeadService } from "../../../gen/threadsight/v1/leads_pb.js";
import { SearchService } from "../../../gen/threadsight/v1/search_pb.js";
import { TrendService } from "../../../gen/threadsight/v1/trends_pb.js";
import { restRoutes } from "../../gateway/http-rules.js";
import { OPERATIONS, operationOf } from "../../limits/operations.js";
import type { Operation } from "../../limits/operations.js";
import type { ExplorerOperation } from "./pages/explorer-page.js";

const TEXT: Readonly<Record<Operation, { label: string; description: string }>> = {
  semantic_search: { label: "Semantic search", description: "Hybrid keyword + meaning search over all posts, with a short summary answering the query." },
  vector_search: { label: "Vector search", description: "Posts whose embeddings are most similar to the query, optionally within a UTC date range." },
  trends: { label: "Trends", description: "Topics active in a window of UTC days, highest trend score first." },
  leads: { label: "Leads", description: "Posts that read like someone looking for a product or service, ranked by intent." },
  // Not offered in the explorer (its services are not listed below); named for the usage table.
  monitors: { label: "Monitors", description: "Managing saved searches that push new matching posts to webhooks, Slack, e-mail and streams." },
};

/** The metered operations with a POST route, in the documented order. */
export function explorerOperations(): ExplorerOperation[] {
  const found = new Map<Operation, ExplorerOperation>();
  for (const route of restRoutes([SearchService, TrendService, LeadService])) {
    const op = operationOf(route.method.parent.typeName, route.method.name);
    if (op === undefined || route.httpMethod !== "POST") continue;
    found.set(op, { id: op, ...TEXT[op], restPath: route.path, grpcPath: `/${route.method.parent.typeName}/${route.method.name}` });
  }
  return OPERATIONS.flatMap((op) => found.get(op) ?? []);
}
