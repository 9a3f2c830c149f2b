/**
 * Server reflection, v1 and v1alpha, exercised over a real HTTP/2 server with a Connect-ES
 * gRPC client: every kind of lookup, the error responses, per-stream de-duplication, and that
 * the returned descriptors rebuild into a registry that knows our API and its annotations.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { create, createFileRegistry, fromBinary, getExtension } from "@bufbuild/protobuf";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { Transport } from "@connectrpc/connect";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { http } from "../../gen/google/api/annotations_pb.js";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import type { ReflectionAnswer, ReflectionQuery } from "../../src/grpc/reflection.js";
import type { EcosystemServer } from "./fixture.js";
import { startEcosystemServer } from "./fixture.js";

const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;
/** Field number of google.api.http on google.protobuf.MethodOptions. */
const HTTP_RULE_NUMBER = 72295728;

/** One reflection response, reduced to what both versions share. */
interface Reply {
  validHost: string;
  originalCase: ReflectionQuery["case"];
  answer: ReflectionAnswer | { case: undefined };
}

/** Sends `queries` on one ServerReflectionInfo stream of the given version; returns the replies in order. */
async function reflect(
  transport: Transport,
  version: "v1" | "v1alpha",
  queries: ReflectionQuery[],
  host = "",
): Promise<Reply[]> {
  const replies: Reply[] = [];
  if (version === "v1") {
    const client = createClient(v1.ServerReflection, transport);
    const requests = queries.map((q) => create(v1.ServerReflectionRequestSchema, { host, messageRequest: q }));
    for await (const res of client.serverReflectionInfo(toStream(requests))) {
      replies.push({
        validHost: res.validHost,
        originalCase: res.originalRequest?.messageRequest.case,
        answer: res.messageResponse,
      });
    }
  } else {
    const client = createClient(v1alpha.ServerReflection, transport);
    const requests = queries.map((q) => create(v1alpha.ServerReflectionRequestSchema, { host, messageRequest: q }));
    for await (const res of client.serverReflectionInfo(toStream(requests))) {
      replies.push({
        validHost: res.validHost,
        originalCase: res.originalRequest?.messageRequest.case,
        answer: res.messageResponse,
      });
    }
  }
  return replies;
}

async function* toStream<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}

/** The decoded file descriptors of a reply, asserting it is a file_descriptor_response. */
function filesOf(reply: Reply | undefined): FileDescriptorProto[] {
  assert.ok(reply, "missing reply");
  assert.equal(reply.answer.case, "fileDescriptorResponse", `expected files, got ${JSON.stringify(reply.answer)}`);
  return reply.answer.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b));
}

function errorOf(reply: Reply | undefined): { errorCode: number; errorMessage: string } {
  assert.ok(reply, "missing reply");
  assert.equal(reply.answer.case, "errorResponse", `expected an error, got ${reply.answer.case}`);
  return reply.answer.value;
}

const symbol = (value: string): ReflectionQuery => ({ case: "fileContainingSymbol", value });

let server: EcosystemServer;
let transport: Transport;

before(async () => {
  server = await startEcosystemServer();
  transport = createGrpcTransport({ baseUrl: server.baseUrl });
});

after(async () => {
  await server.close();
});

for (const version of ["v1", "v1alpha"] as const) {
  describe(`grpc.reflection.${version}`, () => {
    test("list_services names our service and the ecosystem services, echoing request and host", async () => {
      const [reply] = await reflect(transport, version, [{ case: "listServices", value: "*" }], "api.example");
      assert.ok(reply);
      assert.equal(reply.validHost, "api.example");
      assert.equal(reply.originalCase, "listServices");
      assert.equal(reply.answer.case, "listServicesResponse");
      assert.deepEqual(
        reply.answer.value.service.map((s) => s.name),
        [
          "grpc.health.v1.Health",
          "grpc.reflection.v1.ServerReflection",
          "grpc.reflection.v1alpha.ServerReflection",
          "threadsight.v1.SearchService",
        ],
      );
    });

    test("file_containing_symbol returns the file first, then every transitive import", async () => {
      const [reply] = await reflect(transport, version, [symbol("threadsight.v1.SearchService")]);
      const files = filesOf(reply);
      assert.equal(files[0]?.name, "threadsight/v1/search.proto");
      assert.deepEqual(files.map((f) => f.name).sort(), [
        "google/api/annotations.proto",
        "google/api/http.proto",
        "google/protobuf/descriptor.proto",
        "google/protobuf/timestamp.proto",
        "threadsight/v1/filter.proto",
        "threadsight/v1/search.proto",
      ]);
    });

    test("the returned files rebuild into a registry with our messages and HTTP annotations", async () => {
      const [reply] = await reflect(transport, version, [symbol("threadsight.v1.SearchService.SemanticSearch")]);
      const files = filesOf(reply);
      // A FileDescriptorSet must list imports before importers; reverse the server's order.
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: [...files].reverse() }));
      const request = registry.getMessage("threadsight.v1.SemanticSearchRequest");
      assert.ok(request);
      assert.deepEqual(
        request.fields.map((f) => [f.name, f.number]),
        [
          ["query", 1],
          ["limit", 2],
          ["subforums", 3],
          ["page_token", 4],
          ["filter", 5],
          ["sort", 6],
          ["min_relevance", 7],
        ],
      );
      assert.equal(request.field.limit?.proto.proto3Optional, true);
      assert.equal(request.field.minRelevance?.proto.proto3Optional, true);
      const created = registry.getMessage("threadsight.v1.SemanticSearchResult")?.field.created;
      assert.equal(created?.message?.typeName, "google.protobuf.Timestamp");
      const method = registry.getService("threadsight.v1.SearchService")?.method.semanticSearch;
      assert.ok(method?.proto.options);
      // The option travels as bytes inside MethodOptions; decoding it proves nothing was lost.
      const rule = getExtension(method.proto.options, http);
      assert.equal(rule.pattern.case, "post");
      assert.equal(rule.pattern.value, "/api/v1/search/semantic");
      assert.equal(rule.body, "*");
    });

    test("file_containing_symbol resolves every kind of symbol to its declaring file", async () => {
      const cases: [string, string][] = [
        ["threadsight.v1.SearchService", "threadsight/v1/search.proto"],
        ["threadsight.v1.SearchService.VectorSearch", "threadsight/v1/search.proto"],
        ["threadsight.v1.VectorSearchResponse", "threadsight/v1/search.proto"],
        [".threadsight.v1.VectorSearchResponse", "threadsight/v1/search.proto"],
        ["threadsight.v1.VectorSearchRequest.start_date", "threadsight/v1/search.proto"],
        ["threadsight.v1.VectorSearchRequest._limit", "threadsight/v1/search.proto"],
        ["grpc.health.v1.HealthCheckResponse.ServingStatus", "grpc/health/v1/health.proto"],
        ["grpc.health.v1.HealthCheckResponse.SERVICE_UNKNOWN", "grpc/health/v1/health.proto"],
        ["grpc.health.v1.HealthListResponse.StatusesEntry", "grpc/health/v1/health.proto"],
        ["grpc.reflection.v1.ServerReflectionRequest.file_by_filename", "grpc/reflection/v1/reflection.proto"],
        ["grpc.reflection.v1.ServerReflectionRequest.message_request", "grpc/reflection/v1/reflection.proto"],
        ["google.api.http", "google/api/annotations.proto"],
        ["google.api.HttpRule", "google/api/http.proto"],
        ["google.protobuf.Timestamp", "google/protobuf/timestamp.proto"],
        ["google.protobuf.FieldDescriptorProto.Type", "google/protobuf/descriptor.proto"],
      ];
      const replies = await reflect(
        transport,
        version,
        cases.map(([name]) => symbol(name)),
      );
      assert.equal(replies.length, cases.length);
      replies.forEach((reply, i) => assert.equal(filesOf(reply)[0]?.name, cases[i]?.[1], `for ${cases[i]?.[0]}`));
    });

    test("a stream sends each imported file once; a new stream starts afresh", async () => {
      const replies = await reflect(transport, version, [
        symbol("threadsight.v1.SearchService"),
        symbol("threadsight.v1.SemanticSearchRequest"),
        { case: "fileByFilename", value: "google/api/http.proto" },
      ]);
      assert.equal(filesOf(replies[0]).length, 6);
      assert.deepEqual(
        filesOf(replies[1]).map((f) => f.name),
        ["threadsight/v1/search.proto"],
      );
      assert.deepEqual(
        filesOf(replies[2]).map((f) => f.name),
        ["google/api/http.proto"],
      );
      const [fresh] = await reflect(transport, version, [symbol("threadsight.v1.SemanticSearchRequest")]);
      assert.equal(filesOf(fresh).length, 6);
    });

    test("file_by_filename serves our files and the vendored ones", async () => {
      const replies = await reflect(transport, version, [
        { case: "fileByFilename", value: "grpc/health/v1/health.proto" },
        { case: "fileByFilename", value: "google/protobuf/descriptor.proto" },
      ]);
      const health = filesOf(replies[0]);
      assert.deepEqual(
        health.map((f) => f.name),
        ["grpc/health/v1/health.proto"],
      );
      assert.deepEqual(
        health[0]?.service.map((s) => s.method.map((m) => m.name)),
        [["Check", "List", "Watch"]],
      );
      const descriptor = filesOf(replies[1])[0];
      assert.ok(descriptor?.messageType.some((m) => m.name === "MethodOptions"));
    });

    test("extension lookups answer, including an empty list for a type without extensions", async () => {
      const replies = await reflect(transport, version, [
        {
          case: "fileContainingExtension",
          value: { containingType: "google.protobuf.MethodOptions", extensionNumber: HTTP_RULE_NUMBER },
        },
        { case: "allExtensionNumbersOfType", value: "google.protobuf.MethodOptions" },
        { case: "allExtensionNumbersOfType", value: "threadsight.v1.SemanticSearchRequest" },
      ]);
      assert.equal(filesOf(replies[0])[0]?.name, "google/api/annotations.proto");
      assert.deepEqual(replies[1]?.answer, {
        case: "allExtensionNumbersResponse",
        value: {
          $typeName: `grpc.reflection.${version}.ExtensionNumberResponse`,
          baseTypeName: "google.protobuf.MethodOptions",
          extensionNumber: [HTTP_RULE_NUMBER],
        },
      });
      assert.deepEqual(replies[2]?.answer, {
        case: "allExtensionNumbersResponse",
        value: {
          $typeName: `grpc.reflection.${version}.ExtensionNumberResponse`,
          baseTypeName: "threadsight.v1.SemanticSearchRequest",
          extensionNumber: [],
        },
      });
    });

    test("unknown names get NOT_FOUND error responses and the stream keeps answering", async () => {
      const replies = await reflect(transport, version, [
        symbol("threadsight.v1.NoSuchService"),
        { case: "fileByFilename", value: "threadsight/v1/missing.proto" },
        {
          case: "fileContainingExtension",
          value: { containingType: "google.protobuf.MethodOptions", extensionNumber: 1 },
        },
        { case: "fileContainingExtension", value: { containingType: "no.such.Type", extensionNumber: 1 } },
        { case: "allExtensionNumbersOfType", value: "no.such.Type" },
        { case: undefined },
        { case: "listServices", value: "" },
      ]);
      assert.equal(replies.length, 7);
      for (const reply of replies.slice(0, 5)) assert.equal(errorOf(reply).errorCode, NOT_FOUND);
      assert.match(errorOf(replies[0]).errorMessage, /threadsight\.v1\.NoSuchService/);
      assert.match(errorOf(replies[1]).errorMessage, /threadsight\/v1\/missing\.proto/);
      assert.match(errorOf(replies[2]).errorMessage, /field number 1\b/);
      assert.equal(errorOf(replies[5]).errorCode, INVALID_ARGUMENT);
      assert.equal(replies[6]?.answer.case, "listServicesResponse");
    });
  });
}
