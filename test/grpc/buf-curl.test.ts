/**
 * `buf curl` against a real HTTP/2 server with no schema but server reflection: listing,
 * calling our service over gRPC, Connect and gRPC-Web, and both reflection protocols.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { BufCurlResult } from "../harness/buf-curl.js";
import { bufCurl } from "../harness/buf-curl.js";
import type { EcosystemServer } from "./fixture.js";
import { NOT_BUILT, startEcosystemServer } from "./fixture.js";

const SERVICES = [
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
  "threadsight.v1.SearchService",
];

const METHODS = [
  "grpc.health.v1.Health/Check",
  "grpc.health.v1.Health/List",
  "grpc.health.v1.Health/Watch",
  "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
  "threadsight.v1.SearchService/SemanticSearch",
  "threadsight.v1.SearchService/VectorSearch",
];

/** buf curl exits with 8 × the gRPC code when the RPC fails (Unimplemented = 12). */
const EXIT_UNIMPLEMENTED = 8 * 12;
const EXIT_NOT_FOUND = 8 * 5;

const REFLECTION_CALL = {
  "grpc-v1": "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  "grpc-v1alpha": "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
} as const;

let server: EcosystemServer;

before(async () => {
  server = await startEcosystemServer();
});

after(async () => {
  await server.close();
});

beforeEach(() => {
  server.calls.length = 0;
});

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

function assertOk(result: BufCurlResult): void {
  assert.equal(result.code, 0, `buf curl failed: ${result.stderr}`);
}

/** The reflection procedures the server saw, without the protocol prefix, de-duplicated. */
function reflectionCalls(): string[] {
  const procedures = server.calls.filter((c) => c.includes("ServerReflection")).map((c) => c.replace(/^\S+ /, ""));
  return [...new Set(procedures)];
}

test("by default buf curl reflects through grpc.reflection.v1", async () => {
  const result = await bufCurl(["--http2-prior-knowledge", "--list-services", server.baseUrl]);
  assertOk(result);
  assert.deepEqual(lines(result.stdout), SERVICES);
  assert.deepEqual(reflectionCalls(), [REFLECTION_CALL["grpc-v1"]]);
});

for (const reflect of ["grpc-v1", "grpc-v1alpha"] as const) {
  describe(`--reflect-protocol ${reflect}`, () => {
    const base = ["--http2-prior-knowledge", "--reflect-protocol", reflect];

    test("--list-services lists every served service", async () => {
      const result = await bufCurl([...base, "--list-services", server.baseUrl]);
      assertOk(result);
      assert.deepEqual(lines(result.stdout), SERVICES);
      assert.deepEqual(reflectionCalls(), [REFLECTION_CALL[reflect]]);
    });

    test("--list-methods lists every method", async () => {
      const result = await bufCurl([...base, "--list-methods", server.baseUrl]);
      assertOk(result);
      assert.deepEqual(lines(result.stdout), METHODS);
    });

    for (const protocol of ["grpc", "connect", "grpcweb"] as const) {
      test(`SemanticSearch over --protocol ${protocol} reaches the service and returns Unimplemented`, async () => {
        const result = await bufCurl([
          ...base,
          "--protocol",
          protocol,
          "-d",
          JSON.stringify({ query: "battery life", limit: 5, subforums: ["ev"] }),
          `${server.baseUrl}/threadsight.v1.SearchService/SemanticSearch`,
        ]);
        assert.equal(result.code, EXIT_UNIMPLEMENTED, result.stderr);
        assert.deepEqual(JSON.parse(result.stderr), { code: "unimplemented", message: NOT_BUILT });
        assert.ok(
          server.calls.includes(`${protocol} /threadsight.v1.SearchService/SemanticSearch`),
          `server saw ${JSON.stringify(server.calls)}`,
        );
        // Reflection itself ran over the same protocol (a bidi stream on HTTP/2).
        assert.ok(server.calls.includes(`${protocol} ${REFLECTION_CALL[reflect]}`));
      });
    }

    test("the reflected schema is enforced by the client: an unknown field never leaves buf", async () => {
      const result = await bufCurl([
        ...base,
        "-d",
        JSON.stringify({ query: "x", limt: 5 }),
        `${server.baseUrl}/threadsight.v1.SearchService/VectorSearch`,
      ]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /unknown field "limt"/);
      assert.ok(!server.calls.some((c) => c.endsWith("/VectorSearch")));
    });

    test("a message with a Timestamp and an imported annotation resolves (WKT and google.api imports)", async () => {
      // VectorSearchResponse.results[].created is a google.protobuf.Timestamp; the service
      // carries google.api.http options. Sending a request forces buf to build both files.
      const result = await bufCurl([
        ...base,
        "--protocol",
        "grpc",
        "-d",
        JSON.stringify({ query: "x", start_date: "2024-01-01", end_date: "2024-01-31" }),
        `${server.baseUrl}/threadsight.v1.SearchService/VectorSearch`,
      ]);
      assert.equal(result.code, EXIT_UNIMPLEMENTED, result.stderr);
    });

    test("Health/Check answers through buf curl, and NOT_FOUND for an unknown service", async () => {
      const ok = await bufCurl([
        ...base,
        "--protocol",
        "grpc",
        "-d",
        "{}",
        `${server.baseUrl}/grpc.health.v1.Health/Check`,
      ]);
      assertOk(ok);
      assert.deepEqual(JSON.parse(ok.stdout), { status: "SERVING" });
      const unknown = await bufCurl([
        ...base,
        "-d",
        JSON.stringify({ service: "no.such.Service" }),
        `${server.baseUrl}/grpc.health.v1.Health/Check`,
      ]);
      assert.equal(unknown.code, EXIT_NOT_FOUND, unknown.stderr);
      assert.equal(JSON.parse(unknown.stderr).code, "not_found");
    });
  });
}

test("an unknown method is reported from the reflected schema", async () => {
  const result = await bufCurl([
    "--http2-prior-knowledge",
    "-d",
    "{}",
    `${server.baseUrl}/threadsight.v1.SearchService/NoSuchMethod`,
  ]);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /NoSuchMethod/);
});
