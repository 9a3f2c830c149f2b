/**
 * The service through Python grpcio, the binding of gRPC's C core (the reference
 * implementation, and what Python, Ruby and PHP services call with): the calls the other gRPC
 * suites make with grpc-js, grpc-go and connect-go, from one more implementation. Messages are
 * encoded and decoded with the generated TypeScript types; test/grpc/grpcio_client.py only
 * moves bytes. Covered: a health check, a search with its limit metadata, requests compressed
 * with gzip and deflate, errors whose text holds ',' ':' '/' (read as sent), an unknown method,
 * and a deadline.
 * Needs the pinned grpcio (bash scripts/install-grpcio.sh); required under CI.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  HealthCheckRequestSchema,
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from "../../gen/grpc/health/v1/health_pb.js";
import {
  SearchService,
  SemanticSearchRequestSchema,
  SemanticSearchResponseSchema,
  VectorSearchRequestSchema,
} from "../../gen/threadsight/v1/search_pb.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { missingBackend } from "../harness/backend-policy.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

const GRPCIO_VERSION = /^GRPCIO_VERSION=(\S+)$/m.exec(
  readFileSync(path.join(PACKAGE_ROOT, "scripts/install-grpcio.sh"), "utf8"),
)![1]!;
const PYTHON = path.join(os.homedir(), ".cache/threadsight", `grpcio-${GRPCIO_VERSION}`, "bin/python");
const CLIENT = path.join(PACKAGE_ROOT, "test/grpc/grpcio_client.py");

const skip = existsSync(PYTHON)
  ? false
  : missingBackend("grpcio", `${PYTHON} not found (bash scripts/install-grpcio.sh installs it)`);

interface Call {
  path: string;
  request_hex: string;
  metadata?: [string, string][];
  timeout?: number;
  compression?: "gzip" | "deflate";
}
interface Result {
  path: string;
  code: string;
  details: string;
  response_hex: string;
  initial: Record<string, string>;
  trailing: Record<string, string>;
}

/** Runs the Python client over `calls`; one result per call, in order. */
function grpcio(target: string, calls: Call[]): Promise<Result[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [CLIENT], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`grpcio client exited ${code}: ${stderr.slice(-2000)}`));
      resolve(
        stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as Result),
      );
    });
    child.stdin.end(JSON.stringify({ target, calls }));
  });
}

function hex<T extends DescMessage>(schema: T, init: MessageInitShape<T>): string {
  return Buffer.from(toBinary(schema, create(schema, init))).toString("hex");
}

const SEMANTIC = `/${SearchService.typeName}/${SearchService.method.semanticSearch.name}`;
const VECTOR = `/${SearchService.typeName}/${SearchService.method.vectorSearch.name}`;

describe("Python grpcio (gRPC C core) against the real service", { skip }, () => {
  let svc: RunningService;
  let auth: [string, string][];
  before(async () => {
    svc = await startService();
    auth = [["authorization", `Bearer ${await svc.createKey("pro")}`]];
  });
  after(async () => svc?.stop());

  test("health, a search with limit metadata, and gzip- and deflate-compressed requests", async () => {
    const query = `pricing a SaaS product ${"for small teams ".repeat(8)}`;
    const search = hex(SemanticSearchRequestSchema, { query, limit: 5 });
    const [health, plain, gzip, deflate] = await grpcio(svc.address, [
      { path: "/grpc.health.v1.Health/Check", request_hex: hex(HealthCheckRequestSchema, {}) },
      { path: SEMANTIC, request_hex: search, metadata: auth },
      { path: SEMANTIC, request_hex: search, metadata: auth, compression: "gzip" },
      { path: SEMANTIC, request_hex: search, metadata: auth, compression: "deflate" },
    ]);
    assert.equal(health!.code, "OK", health!.details);
    assert.equal(
      fromBinary(HealthCheckResponseSchema, Buffer.from(health!.response_hex, "hex")).status,
      HealthCheckResponse_ServingStatus.SERVING,
    );
    for (const r of [plain!, gzip!, deflate!]) {
      assert.equal(r.code, "OK", r.details);
      assert.equal(fromBinary(SemanticSearchResponseSchema, Buffer.from(r.response_hex, "hex")).query, query);
      assert.equal(r.initial["x-ratelimit-limit"], "100");
    }
  });

  test("errors arrive with their text as written and the right codes", async () => {
    const [noKey, wide, badDate, unknown, late] = await grpcio(svc.address, [
      { path: SEMANTIC, request_hex: hex(SemanticSearchRequestSchema, { query: "x" }) },
      {
        path: VECTOR,
        request_hex: hex(VectorSearchRequestSchema, { query: "x", startDate: "2000-01-01", endDate: "2026-11-01" }),
        metadata: auth,
      },
      {
        path: VECTOR,
        request_hex: hex(VectorSearchRequestSchema, { query: "x", startDate: "2024-02-30" }),
        metadata: auth,
      },
      { path: "/threadsight.v1.SearchService/NoSuchMethod", request_hex: "", metadata: auth },
      {
        path: SEMANTIC,
        request_hex: hex(SemanticSearchRequestSchema, { query: "how do I price my product" }),
        metadata: auth,
        timeout: 0.001,
      },
    ]);
    assert.equal(noKey!.code, "UNAUTHENTICATED");
    assert.equal(noKey!.details, "missing API key: send the header Authorization: Bearer <API key>");
    assert.match(noKey!.trailing["www-authenticate"] ?? "", /^Bearer/);
    assert.equal(wide!.code, "INVALID_ARGUMENT");
    assert.match(wide!.details, /^the date range must span at most \d+ days, got \d+$/);
    assert.equal(badDate!.code, "INVALID_ARGUMENT");
    assert.equal(badDate!.details, 'start_date is not a real calendar date: "2024-02-30"');
    assert.equal(unknown!.code, "UNIMPLEMENTED");
    assert.equal(unknown!.details, "unknown method /threadsight.v1.SearchService/NoSuchMethod");
    assert.equal(late!.code, "DEADLINE_EXCEEDED");
  });
});
