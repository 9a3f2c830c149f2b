/**
 * The filter, sort and lookup fields of SearchService and LeadService against the real
 * service, over REST and over gRPC (@grpc/grpc-js): each bad value is a 400 / INVALID_ARGUMENT
 * naming the field, the same on both; injection strings in the free-text filter fields are
 * accepted as plain values and answer normally.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { LeadService } from "../../gen/threadsight/v1/leads_pb.js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { rest } from "./rest-client.js";

const INJECTIONS = ["x' OR '1'='1", 'startups") OR (1=1', "\\' OR 1=1 --", "*", "%"];

/** A bad request: REST path, JSON body (snake_case), the field the error must name and a message pattern. */
interface BadCase {
  route: "semantic" | "vector" | "leads";
  body: Record<string, unknown>;
  field: string;
  message: RegExp;
}

const CASES: BadCase[] = [
  { route: "semantic", body: { sort: "date" }, field: "sort", message: /^sort must be one of "relevance", "newest"/ },
  { route: "vector", body: { sort: "NEWEST" }, field: "sort", message: /^sort must be one of/ },
  {
    route: "vector",
    body: { filter: { start_date: "2024-03-01", end_date: "2024-02-01" } },
    field: "filter.start_date",
    message: /must not be after filter.end_date/,
  },
  {
    route: "semantic",
    body: { filter: { end_date: "2024-02-30" } },
    field: "filter.end_date",
    message: /not a real calendar date/,
  },
  {
    route: "semantic",
    body: { filter: { authors: Array.from({ length: 21 }, (_, i) => `a${i}`) } },
    field: "filter.authors",
    message: /at most 20 values, got 21/,
  },
  {
    route: "leads",
    body: { filter: { sources: Array.from({ length: 25 }, (_, i) => `s${i}`) } },
    field: "filter.sources",
    message: /at most 20 values/,
  },
  {
    route: "semantic",
    body: { filter: { sentiments: ["angry"] } },
    field: "filter.sentiments[0]",
    message: /must be one of "positive", "neutral", "negative", got "angry"/,
  },
  {
    route: "leads",
    body: { filter: { lead_types: ["buying_intent", "spam"] } },
    field: "filter.lead_types[1]",
    message: /must be one of/,
  },
  { route: "vector", body: { filter: { min_comments: -1 } }, field: "filter.min_comments", message: /between 0 and/ },
  {
    route: "vector",
    body: { filter: { min_upvotes: 2_000_000_000 } },
    field: "filter.min_upvotes",
    message: /between/,
  },
  {
    route: "semantic",
    body: { filter: { subforums: ["saas"], exclude_subforums: ["saas"] } },
    field: "filter.exclude_subforums",
    message: /lists "saas"/,
  },
  {
    route: "semantic",
    body: { subforums: ["a"], filter: { subforums: ["b"] } },
    field: "filter.subforums",
    message: /must not both be given/,
  },
  {
    route: "vector",
    body: { start_date: "2024-01-01", filter: { start_date: "2024-01-01" } },
    field: "filter.start_date",
    message: /must not both be given/,
  },
  ...INJECTIONS.map(
    (s): BadCase => ({
      route: "semantic",
      body: { filter: { sources: [s] } },
      field: "filter.sources[0]",
      message: /must be a source name/,
    }),
  ),
  ...INJECTIONS.map(
    (s): BadCase => ({
      route: "vector",
      body: { filter: { sentiments: [s] } },
      field: "filter.sentiments[0]",
      message: /must be one of/,
    }),
  ),
  ...INJECTIONS.map(
    (s): BadCase => ({
      route: "leads",
      body: { filter: { lead_types: [s] } },
      field: "filter.lead_types[0]",
      message: /must be one of/,
    }),
  ),
  ...INJECTIONS.map(
    (s): BadCase => ({ route: "semantic", body: { sort: s }, field: "sort", message: /^sort must be one of/ }),
  ),
  { route: "leads", body: { sort: "sideways" }, field: "sort", message: /^sort must be one of/ },
];

const PATHS = { semantic: "/api/v1/search/semantic", vector: "/api/v1/search/vector", leads: "/api/v1/leads" } as const;

/** snake_case JSON keys -> the camelCase of protobuf-es messages (what create() takes). */
function camel(v: unknown): unknown {
  if (Array.isArray(v) || v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), camel(x)]),
  );
}

function violationsOf(err: grpc.ServiceError): string[] {
  const raw = err.metadata.get("grpc-status-details-bin")[0];
  if (raw === undefined) return [];
  const status = fromBinary(StatusSchema, raw as Buffer);
  const any = status.details.find((d) => d.typeUrl.endsWith("google.rpc.BadRequest"));
  return any === undefined ? [] : fromBinary(BadRequestSchema, any.value).fieldViolations.map((v) => v.field);
}

describe("search filters and sort over REST and gRPC", () => {
  let svc: RunningService;
  let key: string;
  let search: grpc.Client;
  let leads: grpc.Client;
  before(async () => {
    svc = await startService();
    key = await svc.createKey("enterprise");
    search = createGrpcJsClient(SearchService, svc.address);
    leads = createGrpcJsClient(LeadService, svc.address);
  });
  after(async () => {
    search?.close();
    leads?.close();
    await svc.stop();
  });

  test("each bad filter or sort value is 400 over REST, naming the field", async () => {
    for (const c of CASES) {
      const res = await rest(svc.url, PATHS[c.route], { key, body: { query: "pricing", ...c.body } });
      assert.equal(res.status, 400, `${c.field}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "invalid_argument");
      assert.ok(
        String(res.body.error.message).includes(c.field.replace(/\[\d+\]$/, "")),
        `${c.field} named in ${res.body.error.message}`,
      );
      assert.match(res.body.error.message, c.message);
    }
  });

  test("each bad filter or sort value is INVALID_ARGUMENT over gRPC, with the field in google.rpc.BadRequest", async () => {
    for (const c of CASES) {
      const [client, method] =
        c.route === "leads"
          ? [leads, LeadService.method.findLeads]
          : [search, c.route === "semantic" ? SearchService.method.semanticSearch : SearchService.method.vectorSearch];
      const out = await callUnaryWithMetadata(
        client,
        method as typeof SearchService.method.semanticSearch,
        camel({ query: "pricing", ...c.body }) as never,
        { authorization: `Bearer ${key}` },
      );
      assert.equal(out.error?.code, grpc.status.INVALID_ARGUMENT, `${c.field}: ${out.error?.details}`);
      assert.match(out.error!.details, c.message);
      assert.deepEqual(violationsOf(out.error!), [c.field]);
    }
  });

  test("unknown filter fields are 400 UNKNOWN_FIELD naming the path", async () => {
    const res = await rest(svc.url, PATHS.vector, { key, body: { query: "pricing", filter: { min_upvote: 3 } } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.reason, "UNKNOWN_FIELD");
    assert.match(res.body.error.message, /^unknown field "filter.min_upvote" \(did you mean "min_upvotes"\?\)/);
  });

  test("injection strings in subforums, exclude_subforums and authors are plain values: 200 on every operation", async () => {
    for (const s of INJECTIONS) {
      for (const route of ["semantic", "vector", "leads"] as const) {
        const filter = { subforums: [s], authors: [s] };
        const res = await rest(svc.url, PATHS[route], { key, body: { query: "pricing", filter } });
        assert.equal(res.status, 200, `${route} ${JSON.stringify(s)}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body.data.results, []);
        const ex = await rest(svc.url, PATHS[route], {
          key,
          body: { query: "pricing", filter: { exclude_subforums: [s] } },
        });
        assert.equal(ex.status, 200, `${route} exclude ${JSON.stringify(s)}`);
      }
    }
  });

  test("every sort order and a full filter are accepted over REST and gRPC", async () => {
    const filter = {
      start_date: "2015-01-01",
      end_date: "2016-12-31",
      sources: ["reddit", "hackernews"],
      subforums: ["startups"],
      authors: ["pg"],
      min_upvotes: 1,
      min_comments: 0,
      sentiments: ["positive"],
      lead_types: ["comparison"],
    };
    for (const sort of ["", "relevance", "newest", "oldest", "top", "most_commented"]) {
      for (const route of ["semantic", "vector"] as const) {
        const res = await rest(svc.url, PATHS[route], { key, body: { query: "pricing", filter, sort } });
        assert.equal(res.status, 200, `${route} ${sort}: ${JSON.stringify(res.body)}`);
      }
      const out = await callUnaryWithMetadata(
        search,
        SearchService.method.vectorSearch,
        camel({ query: "pricing", filter, sort }) as never,
        { authorization: `Bearer ${key}` },
      );
      assert.equal(out.error, undefined, out.error?.details);
    }
    for (const sort of ["", "relevance", "newest", "oldest", "top", "most_commented"]) {
      const lead = await rest(svc.url, PATHS.leads, { key, body: { query: "need a crm", filter, sort } });
      assert.equal(lead.status, 200, `leads ${sort}: ${JSON.stringify(lead.body)}`);
    }
  });
});
