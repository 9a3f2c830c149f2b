/**
 * The gRPC face of the real service: a @grpc/grpc-js client calls every RPC over h2c on the same
 * port that serves REST; errors carry the table's code and a google.rpc.ErrorInfo reason; limit
 * headers arrive as metadata; `buf curl` finds everything through reflection and calls each RPC
 * over gRPC, Connect and gRPC-Web.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { LeadService } from "../../gen/threadsight/v1/leads_pb.js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { TrendService } from "../../gen/threadsight/v1/trends_pb.js";
import { UsageService } from "../../gen/threadsight/v1/usage_pb.js";
import { callUnaryWithMetadata, createGrpcJsClient, grpcJsDefinition } from "../grpc/grpc-js-client.js";
import { bufCurl } from "../harness/buf-curl.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

function reasonOf(err: grpc.ServiceError): string {
  const raw = err.metadata.get("grpc-status-details-bin")[0];
  if (raw === undefined) return "";
  const status = fromBinary(StatusSchema, raw as Buffer);
  for (const any of status.details) {
    if (any.typeUrl.endsWith("google.rpc.ErrorInfo")) return fromBinary(ErrorInfoSchema, any.value).reason;
  }
  return "";
}

/** The fields a google.rpc.BadRequest detail names, with their descriptions. */
function violationsOf(err: grpc.ServiceError): { field: string; description: string }[] {
  const raw = err.metadata.get("grpc-status-details-bin")[0];
  if (raw === undefined) return [];
  const status = fromBinary(StatusSchema, raw as Buffer);
  const any = status.details.find((d) => d.typeUrl.endsWith("google.rpc.BadRequest"));
  return any === undefined
    ? []
    : fromBinary(BadRequestSchema, any.value).fieldViolations.map(({ field, description }) => ({ field, description }));
}

describe("gRPC clients against the real service", () => {
  let svc: RunningService;
  let key: string;
  const clients: grpc.Client[] = [];
  before(async () => {
    svc = await startService();
    key = await svc.createKey("pro");
  });
  after(async () => {
    for (const c of clients) c.close();
    await svc.stop();
  });
  function client(service: Parameters<typeof createGrpcJsClient>[0]): grpc.Client {
    const c = createGrpcJsClient(service, svc.address);
    clients.push(c);
    return c;
  }

  test("SemanticSearch answers over gRPC with limit headers in metadata", async () => {
    const out = await callUnaryWithMetadata(
      client(SearchService),
      SearchService.method.semanticSearch,
      { query: "pricing a SaaS product", limit: 5 },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(out.error, undefined, out.error?.details);
    assert.equal(out.response?.query, "pricing a SaaS product");
    assert.ok(out.response!.aiSummary.length > 0);
    assert.equal(out.header.get("x-ratelimit-limit")[0], "100");
    assert.ok(Number(out.header.get("x-quota-remaining")[0]) < 15000);
  });

  test("VectorSearch answers over gRPC and validates dates", async () => {
    const ok = await callUnaryWithMetadata(
      client(SearchService),
      SearchService.method.vectorSearch,
      { query: "hiring engineers", startDate: "2012-01-01", endDate: "2012-12-31" },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(ok.error, undefined, ok.error?.details);
    const bad = await callUnaryWithMetadata(
      client(SearchService),
      SearchService.method.vectorSearch,
      { query: "x", startDate: "2024-02-30" },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(bad.error?.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(reasonOf(bad.error!), "INVALID_DATE");
    assert.match(bad.error!.details, /not a real calendar date/);
    assert.deepEqual(violationsOf(bad.error!), [{ field: "start_date", description: bad.error!.details }]);
    // grpc-js reads grpc-message with decodeURI: a comma sent as %2C would stay "%2C".
    const wide = await callUnaryWithMetadata(
      client(SearchService),
      SearchService.method.vectorSearch,
      { query: "x", startDate: "2000-01-01", endDate: "2026-11-01" },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(wide.error?.code, grpc.status.INVALID_ARGUMENT);
    assert.match(wide.error!.details, /^the date range must span at most \d+ days, got \d+$/);
    assert.deepEqual(
      violationsOf(wide.error!).map((v) => v.field),
      ["end_date"],
    );
  });

  test("an unknown method is UNIMPLEMENTED, its path readable to grpc-js", async () => {
    const c = client(SearchService);
    const path = "/threadsight.v1.SearchService/NoSuchMethod";
    const err = await new Promise<grpc.ServiceError | null>((resolve) => {
      c.makeUnaryRequest(
        path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
        (e) => resolve(e),
      );
    });
    assert.equal(err?.code, grpc.status.UNIMPLEMENTED, `${err?.code} ${err?.details}`);
    assert.equal(err!.details, `unknown method ${path}`);
  });

  test("requests compressed with each encoding grpc-js offers are served", async () => {
    // grpc-js numbers them: 1 deflate, 2 gzip. Deflate was UNIMPLEMENTED before deflate.ts.
    for (const [algorithm, name] of [
      [1, "deflate"],
      [2, "gzip"],
    ] as const) {
      const Client = grpc.makeGenericClientConstructor(grpcJsDefinition(SearchService), "SearchService");
      const c = new Client(svc.address, grpc.credentials.createInsecure(), {
        "grpc.default_compression_algorithm": algorithm,
      });
      clients.push(c);
      const query = `pricing a SaaS product ${"for small teams ".repeat(8)}`;
      const out = await callUnaryWithMetadata(
        c,
        SearchService.method.semanticSearch,
        { query, limit: 5 },
        { authorization: `Bearer ${key}` },
      );
      assert.equal(out.error, undefined, `${name}: ${out.error?.details}`);
      assert.equal(out.response?.query, query, name);
    }
  });

  test("FindLeads answers over gRPC", async () => {
    const out = await callUnaryWithMetadata(
      client(LeadService),
      LeadService.method.findLeads,
      { query: "looking for a CRM", minScore: 0 },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(out.error, undefined, out.error?.details);
    assert.equal(out.response?.query, "looking for a CRM");
  });

  test("ListTrends over gRPC: FAILED_PRECONDITION naming the command while no topic model exists; validates its window", async () => {
    // This service's data directory is fresh: no topic model has been built (test/api/topics-auto-build.test.ts covers the built case).
    const out = await callUnaryWithMetadata(
      client(TrendService),
      TrendService.method.listTrends,
      { startDate: "2016-01-01", endDate: "2016-01-31" },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(out.error?.code, grpc.status.FAILED_PRECONDITION, JSON.stringify(out.response));
    assert.equal(reasonOf(out.error!), "TOPICS_NOT_BUILT");
    assert.match(out.error!.details, /`threadsight topics rebuild`/);
    const bad = await callUnaryWithMetadata(
      client(TrendService),
      TrendService.method.listTrends,
      { startDate: "2016-02-01", endDate: "2016-01-01" },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(bad.error?.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(reasonOf(bad.error!), "INVALID_DATE");
  });

  test("GetUsage is free and reports the calls made", async () => {
    const c = client(UsageService);
    const first = await callUnaryWithMetadata(c, UsageService.method.getUsage, {}, { authorization: `Bearer ${key}` });
    const second = await callUnaryWithMetadata(c, UsageService.method.getUsage, {}, { authorization: `Bearer ${key}` });
    assert.equal(first.error, undefined, first.error?.details);
    assert.equal(first.response!.plan, "pro");
    assert.equal(second.response!.used, first.response!.used, "usage calls must not count");
  });

  test("a missing key is UNAUTHENTICATED with reason INVALID_API_KEY", async () => {
    const out = await callUnaryWithMetadata(
      client(SearchService),
      SearchService.method.semanticSearch,
      { query: "x" },
      {},
    );
    assert.equal(out.error?.code, grpc.status.UNAUTHENTICATED);
    assert.equal(reasonOf(out.error!), "INVALID_API_KEY");
    assert.deepEqual(violationsOf(out.error!), [], "no field is at fault");
    assert.match(String(out.error!.metadata.get("www-authenticate")[0]), /^Bearer/);
  });

  test("a client deadline shorter than the call is DEADLINE_EXCEEDED", async () => {
    const out = await callUnaryWithMetadata(
      client(SearchService),
      SearchService.method.semanticSearch,
      { query: "a fresh query the cache has not seen yet" },
      { authorization: `Bearer ${key}` },
      { deadline: Date.now() + 1 },
    );
    assert.equal(out.error?.code, grpc.status.DEADLINE_EXCEEDED);
  });

  test("buf curl lists every service through reflection", async () => {
    const res = await bufCurl(["--http2-prior-knowledge", "--list-services", svc.url]);
    assert.equal(res.code, 0, res.stderr);
    for (const name of [
      "threadsight.v1.SearchService",
      "threadsight.v1.TrendService",
      "threadsight.v1.LeadService",
      "threadsight.v1.UsageService",
      "threadsight.v1.InsightsService",
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
    ]) {
      assert.match(res.stdout, new RegExp(`^${name.replace(/\./g, "\\.")}$`, "m"));
    }
  });

  for (const protocol of ["grpc", "connect", "grpcweb"] as const) {
    test(`buf curl calls every RPC over ${protocol}`, async () => {
      const calls: [string, object][] = [
        ["threadsight.v1.SearchService/SemanticSearch", { query: "marketing on a budget", limit: 2 }],
        ["threadsight.v1.SearchService/VectorSearch", { query: "marketing on a budget", limit: 2 }],
        ["threadsight.v1.LeadService/FindLeads", { query: "need an accountant", min_score: 0 }],
        ["threadsight.v1.TrendService/ListTrends", {}],
        ["threadsight.v1.UsageService/GetUsage", {}],
        [
          "threadsight.v1.InsightsService/AggregatePosts",
          { query: "marketing", group_by: ["source"], interval: "month" },
        ],
      ];
      for (const [path, body] of calls) {
        // No --schema: buf curl resolves the method through our reflection service.
        const res = await bufCurl([
          "--http2-prior-knowledge",
          "--protocol",
          protocol,
          "-H",
          `Authorization: Bearer ${key}`,
          "-d",
          JSON.stringify(body),
          `${svc.url}/${path}`,
        ]);
        if (path.endsWith("/ListTrends")) {
          // No topic model in this fresh data directory: the error, not an empty success.
          assert.notEqual(res.code, 0, res.stdout);
          assert.match(res.stderr, /failed_precondition/i, res.stderr);
          assert.match(res.stderr, /`threadsight topics rebuild`/, res.stderr);
          continue;
        }
        assert.equal(res.code, 0, `${path} over ${protocol}: ${res.stderr}`);
        assert.doesNotThrow(() => JSON.parse(res.stdout), res.stdout);
      }
    });
  }
});
