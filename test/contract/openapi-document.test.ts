/**
 * The generated OpenAPI document: current (rebuilding it from proto/ gives the committed file),
 * a valid OpenAPI 3.1 document (checked by @readme/openapi-parser against the official schema),
 * in agreement with the hand-written contract schema of the spec (same fields, required ones,
 * types and value sets), and served as is by a running service, publicly and unmetered.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import { RULES } from "../../src/core/request-rules.js";
import { ERROR_TABLE } from "../../src/errors/error-table.js";
import { restRoutes, streamRoutes } from "../../src/gateway/http-rules.js";
import { LIMIT_HEADER_NAMES } from "../../src/limits/limit-headers.js";
import { generateOpenApiText } from "../../src/openapi/generate.js";
import { OPENAPI_FILE } from "../../src/openapi/openapi-file.js";
import { OPENAPI_PATH } from "../../src/openapi/openapi-route.js";
import { API_SERVICES } from "../../src/server.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { loadOpenApiDocument } from "./openapi-validator.js";
import { SPEC_SCHEMAS } from "./rest-schema.js";

type Json = { [key: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON documents

const doc = loadOpenApiDocument();

function deref(node: Json): Json {
  let out = node;
  while (typeof out.$ref === "string")
    out = doc.components.schemas[(out.$ref as string).replace("#/components/schemas/", "")] as Json;
  return out;
}

/** Every way `gen` (generated, from the proto) disagrees with `spec` (hand-written, from the spec). */
function disagreements(spec: Json, genNode: Json, where: string): string[] {
  const gen = deref(genNode);
  const out: string[] = [];
  if (spec.const !== undefined && gen.const !== spec.const) out.push(`${where}: const ${gen.const} != ${spec.const}`);
  if (
    spec.enum !== undefined &&
    JSON.stringify([...(gen.enum ?? [])].sort()) !== JSON.stringify([...spec.enum].sort())
  ) {
    out.push(`${where}: enum ${JSON.stringify(gen.enum)} != ${JSON.stringify(spec.enum)}`);
  }
  if (spec.type !== undefined && gen.type !== spec.type) out.push(`${where}: type ${gen.type} != ${spec.type}`);
  if (spec.format !== undefined && gen.format !== spec.format)
    out.push(`${where}: format ${gen.format} != ${spec.format}`);
  if (spec.type === "array") out.push(...disagreements(spec.items as Json, gen.items as Json, `${where}[]`));
  if (spec.type === "object") {
    const specKeys = Object.keys(spec.properties as Json).sort();
    const genKeys = Object.keys((gen.properties ?? {}) as Json).sort();
    if (JSON.stringify(specKeys) !== JSON.stringify(genKeys))
      out.push(`${where}: fields ${genKeys.join(",")} != spec ${specKeys.join(",")}`);
    for (const name of spec.required as string[])
      if (!((gen.required ?? []) as string[]).includes(name))
        out.push(`${where}.${name}: required by the spec, optional in the document`);
    if (gen.additionalProperties !== false) out.push(`${where}: allows fields beyond the contract`);
    for (const key of specKeys)
      if (gen.properties?.[key] !== undefined)
        out.push(...disagreements(spec.properties[key] as Json, gen.properties[key] as Json, `${where}.${key}`));
  }
  return out;
}

describe("the generated OpenAPI document", () => {
  test("rebuilding it from proto/ gives the committed file, byte for byte (run `npm run generate` if not)", async () => {
    const first = await generateOpenApiText(API_SERVICES);
    assert.equal(await generateOpenApiText(API_SERVICES), first, "two builds from the same inputs differ");
    assert.equal(first, await readFile(OPENAPI_FILE, "utf8"));
    assert.ok(first.endsWith("}\n"));
  });

  test("is a valid OpenAPI 3.1 document", async () => {
    assert.equal(doc.openapi, "3.1.0");
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, result.valid ? "" : compileErrors(result));
  });

  test("lists every annotated RPC once, with its body schema, the envelope and every error status", () => {
    const routes = restRoutes(API_SERVICES);
    const streams = streamRoutes(API_SERVICES);
    const ops = Object.values(doc.paths as Json).flatMap((item) => Object.values(item as Json)) as Json[];
    // The annotated routes, the streamed exports, and WatchMonitor's Server-Sent Events route.
    assert.equal(ops.length, routes.length + streams.length + 1);
    const sse = doc.paths["/api/v1/monitors/{monitor_id}/events"]?.get as Json | undefined;
    assert.ok(sse !== undefined, "GET /api/v1/monitors/{monitor_id}/events missing");
    assert.deepEqual(Object.keys(sse.responses["200"].content), ["text/event-stream"]);
    assert.match(sse.responses["200"].description, /id: evt_000000001a\ndata: \{/);
    assert.match(sse.responses["200"].description, /\(#\/components\/schemas\/MonitorEvent\)/);
    assert.ok(doc.components.schemas.MonitorEvent !== undefined);
    assert.deepEqual(
      sse.parameters.map((p: Json) => `${p.in}:${p.name}:${p.required}`),
      ["path:monitor_id:true", "query:since:false", "header:Last-Event-ID:false"],
    );
    for (const status of ["400", "401", "404", "429", "500", "503"])
      assert.ok(sse.responses[status] !== undefined, `the event stream lacks ${status}`);
    for (const stream of streams) {
      const op = doc.paths[stream.path]?.post as Json | undefined;
      assert.ok(op !== undefined, `POST ${stream.path} missing`);
      assert.deepEqual(Object.keys(op.responses["200"].content).sort(), ["application/x-ndjson", "text/csv"]);
      assert.equal(
        op.requestBody.content["application/json"].schema.$ref,
        `#/components/schemas/${stream.method.input.name}`,
      );
    }
    assert.equal(new Set(ops.map((o) => o.operationId)).size, ops.length, "operation ids are unique");
    for (const route of routes) {
      const op = doc.paths[route.path]?.[route.httpMethod.toLowerCase()] as Json | undefined;
      assert.ok(op !== undefined, `${route.httpMethod} ${route.path} missing`);
      if (route.httpMethod === "POST") {
        const ref = op.requestBody.content["application/json"].schema.$ref as string;
        assert.equal(ref, `#/components/schemas/${route.method.input.name}`);
      }
      const data = op.responses["200"].content["application/json"].schema;
      assert.deepEqual(data.required, ["success", "data"]);
      assert.equal(data.properties.data.$ref, `#/components/schemas/${route.method.output.name}`);
      for (const status of ["400", "401", "429", "500", "503"])
        assert.ok(op.responses[status] !== undefined, `${route.path} lacks ${status}`);
    }
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      ...doc.components.securitySchemes.bearerAuth,
      type: "http",
      scheme: "bearer",
    });
  });

  test("carries the service's own rules: bounds, error reasons, limit headers", () => {
    const vector = doc.components.schemas.VectorSearchRequest.properties;
    assert.equal(vector.limit.maximum, RULES.limitMax);
    assert.equal(vector.limit.minimum, RULES.limitMin);
    assert.equal(vector.query.maxLength, RULES.queryMaxChars);
    assert.equal(vector.start_date.format, "date");
    assert.equal(doc.components.schemas.FindLeadsRequest.properties.min_score.maximum, RULES.minScoreMax);
    assert.deepEqual(doc.components.schemas.FindLeadsRequest.required, ["query"]);
    assert.equal(doc.components.schemas.ListTrendsRequest.required, undefined, "trends has no required field");
    const reasons = doc.components.schemas.ErrorBody.properties.error.properties.reason.enum as string[];
    assert.deepEqual(
      [...reasons].sort(),
      Object.values(ERROR_TABLE)
        .map((r) => r.reason)
        .sort(),
    );
    for (const row of Object.values(ERROR_TABLE)) {
      const res = doc.components.responses[`Error${row.http}`] as Json;
      assert.ok(
        res.content["application/json"].schema.properties.error.properties.reason.enum.includes(row.reason),
        `${row.reason} under ${row.http}`,
      );
    }
    const headers = Object.keys(doc.components.headers as Json).map((h) => h.toLowerCase());
    for (const name of LIMIT_HEADER_NAMES) assert.ok(headers.includes(name), name);
    const semantic200 = doc.paths["/api/v1/search/semantic"].post.responses["200"].headers;
    assert.equal(semantic200["X-RateLimit-Limit"].required, true);
    const usage200 = doc.paths["/api/v1/usage"].get.responses["200"].headers;
    assert.equal(usage200["X-RateLimit-Limit"], undefined, "usage is free: no limit headers");
  });

  test("agrees with the hand-written contract schema of the spec (fields, required, types, value sets)", () => {
    const problems: string[] = [];
    const specPaths = Object.keys(SPEC_SCHEMAS.data).sort();
    // MonitorService is ours to design (the spec lists events as not shown), and PostService
    // goes beyond the spec: no spec schema for either.
    const specified = Object.keys(doc.paths as Json).filter(
      (p) => !p.startsWith("/api/v1/monitors") && !p.startsWith("/api/v1/posts"),
    );
    assert.deepEqual(specified.sort(), specPaths);
    assert.ok(Object.keys(doc.paths as Json).includes("/api/v1/monitors"));
    for (const [p, spec] of Object.entries(SPEC_SCHEMAS.data)) {
      const op = Object.values(doc.paths[p] as Json)[0] as Json;
      problems.push(
        ...disagreements(
          spec as Json,
          op.responses["200"].content["application/json"].schema.properties.data as Json,
          p,
        ),
      );
    }
    problems.push(...disagreements(SPEC_SCHEMAS.error as Json, doc.components.schemas.ErrorBody as Json, "error body"));
    assert.deepEqual(problems, []);
    // The comparison itself can fail: a spec field the proto lacks is reported.
    const broken = structuredClone(SPEC_SCHEMAS.data["/api/v1/usage"]) as Json;
    broken.properties.quota_left = { type: "integer" };
    broken.required.push("quota_left");
    const op = doc.paths["/api/v1/usage"].get as Json;
    assert.ok(
      disagreements(broken, op.responses["200"].content["application/json"].schema.properties.data as Json, "usage")
        .length >= 1,
    );
  });
});

describe(`GET ${OPENAPI_PATH}`, () => {
  let svc: RunningService;
  before(async () => {
    svc = await startService();
  });
  after(async () => svc?.stop());

  test("serves the committed file as is, without a key, unmetered, cacheable", async () => {
    const file = await readFile(OPENAPI_FILE, "utf8");
    const res = await fetch(svc.url + OPENAPI_PATH);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.match(res.headers.get("cache-control") ?? "", /public, max-age=\d+/);
    assert.equal(await res.text(), file);
    assert.equal(res.headers.get("x-ratelimit-limit"), null, "not metered");
    const etag = res.headers.get("etag");
    assert.ok(etag !== null);
    const again = await fetch(svc.url + OPENAPI_PATH, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    const alias = await fetch(`${svc.url}/v1/openapi.json`);
    assert.equal(await alias.text(), file);
  });
});
