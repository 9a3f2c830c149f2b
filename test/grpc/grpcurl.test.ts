/**
 * grpcurl (the most common gRPC CLI) against a real server through reflection: list, describe
 * of a service, a message and an extension, a call, and a health check. grpcurl comes from
 * scripts/install-grpcurl.sh; the suite skips when it is absent on a developer machine and
 * fails when CI (or REQUIRE_GRPCURL=1) is set.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { missingBackend } from "../harness/backend-policy.js";
import type { EcosystemServer } from "./fixture.js";
import { NOT_BUILT, startEcosystemServer } from "./fixture.js";

/** GRPCURL_BIN, else the cache folder the project's tools are installed into, else PATH. */
function findGrpcurl(): string | undefined {
  const cache = process.env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache", "threadsight");
  const candidates = [
    process.env.GRPCURL_BIN,
    path.join(cache, "bin", "grpcurl"),
    ...(process.env.PATH ?? "").split(path.delimiter).map((dir) => path.join(dir, "grpcurl")),
  ];
  return candidates.find((c): c is string => Boolean(c) && existsSync(c as string));
}

const GRPCURL = findGrpcurl();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function grpcurl(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(GRPCURL as string, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") reject(err);
      else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

describe("grpcurl", { skip: GRPCURL ? false : missingBackend("grpcurl", "run scripts/install-grpcurl.sh") }, () => {
  let server: EcosystemServer;
  /** `grpcurl -plaintext <flags> <address> <command...>` */
  const run = (flags: string[], ...command: string[]): Promise<Run> =>
    grpcurl(["-plaintext", ...flags, server.address, ...command]);

  before(async () => {
    server = await startEcosystemServer();
  });

  after(async () => {
    await server.close();
  });

  test("list shows every served service", async () => {
    const result = await run([], "list");
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.stdout.trim().split("\n"), [
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
      "threadsight.v1.SearchService",
    ]);
  });

  test("describe of a service shows its RPCs with their google.api.http routes", async () => {
    const result = await run([], "describe", "threadsight.v1.SearchService");
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /rpc SemanticSearch \( \.threadsight\.v1\.SemanticSearchRequest \) returns \( \.threadsight\.v1\.SemanticSearchResponse \)/,
    );
    assert.match(
      result.stdout,
      /option \(\.google\.api\.http\) = \{ post: "\/api\/v1\/search\/semantic", body: "\*" \}/,
    );
  });

  test("describe of a message shows its fields", async () => {
    const result = await run([], "describe", "threadsight.v1.SemanticSearchRequest");
    assert.equal(result.code, 0, result.stderr);
    for (const field of [
      "string query = 1;",
      "optional int32 limit = 2;",
      "repeated string subforums = 3;",
      "string page_token = 4;",
    ]) {
      assert.ok(result.stdout.includes(field), `missing "${field}" in:\n${result.stdout}`);
    }
  });

  test("describe of an extension and of a well-known type", async () => {
    const ext = await run([], "describe", "google.api.http");
    assert.equal(ext.code, 0, ext.stderr);
    assert.match(ext.stdout, /extend \.google\.protobuf\.MethodOptions \{\s+\.google\.api\.HttpRule http = 72295728;/);
    const ts = await run([], "describe", "google.protobuf.Timestamp");
    assert.equal(ts.code, 0, ts.stderr);
    assert.match(ts.stdout, /int64 seconds = 1;/);
  });

  test("describe of an unknown symbol fails naming it", async () => {
    const result = await run([], "describe", "threadsight.v1.Nope");
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /threadsight\.v1\.Nope/);
  });

  test("a call reaches the service and returns Unimplemented", async () => {
    const result = await run(
      ["-d", JSON.stringify({ query: "battery life" })],
      "threadsight.v1.SearchService/SemanticSearch",
    );
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /Code: Unimplemented/);
    assert.ok(result.stderr.includes(`Message: ${NOT_BUILT}`));
  });

  test("Health/Check answers SERVING", async () => {
    const result = await run([], "grpc.health.v1.Health/Check");
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { status: "SERVING" });
  });
});
