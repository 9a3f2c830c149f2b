/**
 * The operations the explorer offers, derived from the proto's google.api.http rules and the
 * metered-operation table, so a new paid RPC with a REST route appears without page changes.
 */
import { InsightsService } from "../../../gen/threadsight/v1/insights_pb.js";
import { LeadService } from "../../../gen/threadsight/v1/leads_pb.js";
import { SearchService } from "../../../gen/threadsight/v1/search_pb.js";
import { TrendService } from "../../../gen/threadsight/v1/trends_pb.js";
import { restRoutes } from "../../gateway/http-rules.js";
import type { Operation } from "../../limits/operations.js";
import { OPERATIONS, operationOf } from "../../limits/operations.js";
import type { ExplorerOperation } from "./pages/explorer-page.js";

const TEXT: Readonly<Record<Operation, Omit<ExplorerOperation, "id" | "restPath" | "grpcPath">>> = {
  semantic_search: {
    label: "Semantic search",
    description: "Hybrid keyword + meaning search over all posts, with a short summary answering the query.",
    examples: [
      { label: "First customers", body: { query: "how do I find my first customers", limit: 5 } },
      { label: "Pricing a SaaS", body: { query: "how should I price my SaaS product", limit: 5 } },
      { label: "Stripe vs PayPal", body: { query: "stripe vs paypal fees", limit: 3 } },
    ],
  },
  vector_search: {
    label: "Vector search",
    description: "Posts whose embeddings are most similar to the query, optionally within a UTC date range.",
    examples: [
      { label: "Hiring a first engineer", body: { query: "hiring a first engineer", limit: 5 } },
      {
        label: "Burnout, 2013",
        body: { query: "founder burnout", limit: 5, start_date: "2013-01-01", end_date: "2013-12-31" },
      },
    ],
  },
  trends: {
    label: "Trends",
    description:
      "Topics active in a window of UTC days, highest trend score first. Without dates: the 30 days ending on the newest day with posts.",
    examples: [
      { label: "Default window", body: { limit: 10 } },
      { label: "January 2013", body: { start_date: "2013-01-01", end_date: "2013-01-31", limit: 8 } },
    ],
  },
  leads: {
    label: "Leads",
    description: "Posts that read like someone looking for a product or service, ranked by intent.",
    examples: [
      { label: "CRM recommendations", body: { query: "looking for a CRM for a small team", limit: 5 } },
      { label: "Alternative to Mailchimp", body: { query: "alternative to mailchimp", limit: 5, min_score: 40 } },
    ],
  },
  aggregate: {
    label: "Aggregate",
    description:
      "Counts of the posts a filter (and optionally a query) selects, by subforum, source, sentiment, lead type or author, and a day, week or month histogram.",
    examples: [
      {
        label: "Notion, weekly",
        body: { query: "notion", interval: "week", group_by: ["subforum"], top_n: 5 },
      },
      {
        label: "Hacker News by month, 2013",
        body: {
          filter: { sources: ["hackernews"], start_date: "2013-01-01", end_date: "2013-12-31" },
          interval: "month",
          group_by: ["sentiment"],
        },
      },
    ],
  },
  // Not offered in the explorer (their services are not listed below); named for the usage table.
  get_posts: {
    label: "Get posts",
    description: "Stored posts by id, up to 100 at a time, with the ids that were not found.",
    examples: [],
  },
  export_posts: {
    label: "Export posts",
    description: "Every post matching a filter, streamed as NDJSON or CSV; one call per started 1,000 posts.",
    examples: [],
  },
  monitors: {
    label: "Monitors",
    description: "Managing saved searches that push new matching posts to webhooks, Slack, e-mail and streams.",
    examples: [],
  },
};

/** The metered operations with a POST route, in the documented order. */
export function explorerOperations(): ExplorerOperation[] {
  const found = new Map<Operation, ExplorerOperation>();
  for (const route of restRoutes([SearchService, TrendService, LeadService, InsightsService])) {
    const op = operationOf(route.method.parent.typeName, route.method.name);
    if (op === undefined || route.httpMethod !== "POST") continue;
    found.set(op, {
      id: op,
      ...TEXT[op],
      restPath: route.path,
      grpcPath: `/${route.method.parent.typeName}/${route.method.name}`,
    });
  }
  return OPERATIONS.flatMap((op) => found.get(op) ?? []);
}
