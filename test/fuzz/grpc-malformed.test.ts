/**
 * Malformed, oversized and out-of-range gRPC input against the real running service, sent as
 * hand-built bytes over raw HTTP/2 (gRPC), gRPC-Web and Connect (binary and JSON). Every case
 * must come back as a clean status - INVALID_ARGUMENT, RESOURCE_EXHAUSTED or UNIMPLEMENTED - with
 * a message naming the field or the problem; never INTERNAL or UNKNOWN, and the process keeps
 * answering valid calls afterwards.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deflateSync, gzipSync } from "node:zlib";
import type { WireResult } from "./grpc-wire.js";
import {
  connectUnary,
  envelope,
  grpcWebCall,
  H2Client,
  lenField,
  Status,
  tag,
  varint,
  varintField,
} from "./grpc-wire.js";
import { wireTarget } from "./wire-target.js";

const SEMANTIC = "/threadsight.v1.SearchService/SemanticSearch";
const VECTOR = "/threadsight.v1.SearchService/VectorSearch";
const LEADS = "/threadsight.v1.LeadService/FindLeads";
const TRENDS = "/threadsight.v1.TrendService/ListTrends";
const BAD_UTF8 = Buffer.from([0x61, 0xff, 0xfe, 0x62]);
/** MAX_BODY_BYTES default; the service under test runs on defaults. */
const MAX_BODY = 64 * 1024;

/** One malformed message body (the protobuf payload, before framing) and what it must produce. */
interface MessageCase {
  name: string;
  path: string;
  payload: Buffer;
  status: number;
  message: RegExp;
}

const query = lenField(1, "crm for a small team");

const MESSAGE_CASES: MessageCase[] = [
  {
    name: "random bytes",
    path: SEMANTIC,
    payload: Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x01, 0x02]),
    status: Status.INVALID_ARGUMENT,
    message: /SemanticSearchRequest.*field tag/,
  },
  {
    name: "a varint cut off mid-number",
    path: SEMANTIC,
    payload: Buffer.concat([query, tag(2, 0), Buffer.from([0xff, 0xff])]),
    status: Status.INVALID_ARGUMENT,
    message: /field limit \(number 2\).*truncated/,
  },
  {
    name: "a string whose length runs past the end",
    path: SEMANTIC,
    payload: Buffer.concat([tag(1, 2), varint(40), Buffer.from("short")]),
    status: Status.INVALID_ARGUMENT,
    message: /field query \(number 1\).*truncated/,
  },
  {
    name: "a string field sent as a varint (wrong wire type)",
    path: SEMANTIC,
    payload: varintField(1, 5),
    status: Status.INVALID_ARGUMENT,
    message: /field query \(number 1\) has wire type 0, expected 2/,
  },
  {
    name: "an int32 field sent length-delimited (wrong wire type)",
    path: VECTOR,
    payload: Buffer.concat([query, lenField(2, "10")]),
    status: Status.INVALID_ARGUMENT,
    message: /field limit \(number 2\) has wire type 2, expected 0/,
  },
  {
    name: "wire type 7 (does not exist)",
    path: LEADS,
    payload: Buffer.concat([query, tag(9, 7)]),
    status: Status.INVALID_ARGUMENT,
    message: /field tag/,
  },
  {
    name: "field number 0",
    path: TRENDS,
    payload: Buffer.from([0x00, 0x01]),
    status: Status.INVALID_ARGUMENT,
    message: /field tag/,
  },
  {
    name: "invalid UTF-8 in query",
    path: SEMANTIC,
    payload: lenField(1, BAD_UTF8),
    status: Status.INVALID_ARGUMENT,
    message: /field query \(number 1\) is not valid UTF-8/,
  },
  {
    name: "invalid UTF-8 in subforums",
    path: SEMANTIC,
    payload: Buffer.concat([query, lenField(3, BAD_UTF8)]),
    status: Status.INVALID_ARGUMENT,
    message: /field subforums \(number 3\) is not valid UTF-8/,
  },
  {
    name: "invalid UTF-8 in page_token",
    path: SEMANTIC,
    payload: Buffer.concat([query, lenField(4, BAD_UTF8)]),
    status: Status.INVALID_ARGUMENT,
    message: /field page_token \(number 4\) is not valid UTF-8/,
  },
  {
    name: "invalid UTF-8 in start_date",
    path: VECTOR,
    payload: Buffer.concat([query, lenField(3, BAD_UTF8)]),
    status: Status.INVALID_ARGUMENT,
    message: /field start_date \(number 3\) is not valid UTF-8/,
  },
  {
    name: "invalid UTF-8 in a lead query",
    path: LEADS,
    payload: lenField(1, BAD_UTF8),
    status: Status.INVALID_ARGUMENT,
    message: /FindLeadsRequest.*field query \(number 1\) is not valid UTF-8/,
  },
  {
    name: "invalid UTF-8 in end_date of trends",
    path: TRENDS,
    payload: lenField(2, BAD_UTF8),
    status: Status.INVALID_ARGUMENT,
    message: /ListTrendsRequest.*field end_date \(number 2\) is not valid UTF-8/,
  },
  {
    name: "a negative limit (ten-byte varint)",
    path: SEMANTIC,
    payload: Buffer.concat([query, varintField(2, -5)]),
    status: Status.INVALID_ARGUMENT,
    message: /^limit must be between 1 and 100, got -5$/,
  },
  {
    name: "limit at int32 max",
    path: VECTOR,
    payload: Buffer.concat([query, varintField(2, 2 ** 31 - 1)]),
    status: Status.INVALID_ARGUMENT,
    message: /^limit must be between 1 and 100, got 2147483647$/,
  },
  // A 64-bit varint in an int32 field is truncated to its low 32 bits, as every protobuf runtime does.
  {
    name: "limit as a 64-bit varint",
    path: SEMANTIC,
    payload: Buffer.concat([query, varintField(2, 2n ** 40n)]),
    status: Status.INVALID_ARGUMENT,
    message: /^limit must be between 1 and 100, got 0$/,
  },
  {
    name: "a negative min_score",
    path: LEADS,
    payload: Buffer.concat([query, varintField(3, -1)]),
    status: Status.INVALID_ARGUMENT,
    message: /^min_score must be between 0 and 100, got -1$/,
  },
  {
    name: "a trends limit of 2^31-1",
    path: TRENDS,
    payload: varintField(3, 2 ** 31 - 1),
    status: Status.INVALID_ARGUMENT,
    message: /^limit must be between/,
  },
  {
    name: "an impossible date",
    path: VECTOR,
    payload: Buffer.concat([query, lenField(3, "2024-02-30")]),
    status: Status.INVALID_ARGUMENT,
    message: /start_date is not a real calendar date: "2024-02-30"/,
  },
  {
    name: "a blank query",
    path: SEMANTIC,
    payload: lenField(1, "   "),
    status: Status.INVALID_ARGUMENT,
    message: /^query is required/,
  },
];

/** Framing and transport problems, which only gRPC and gRPC-Web carry (a body of envelopes). */
interface FrameCase {
  name: string;
  body: Buffer;
  headers?: Record<string, string>;
  status: number;
  message: RegExp;
}

const FRAME_CASES: FrameCase[] = [
  {
    name: "fewer bytes than an envelope header",
    body: Buffer.from([0x00, 0x00]),
    status: Status.INVALID_ARGUMENT,
    message: /incomplete envelope/,
  },
  {
    name: "declared length longer than what follows",
    body: envelope(query, { declaredLength: query.length + 100 }),
    status: Status.INVALID_ARGUMENT,
    message: /incomplete envelope/,
  },
  {
    name: "declared length of 2 GiB",
    body: envelope(Buffer.alloc(0), { declaredLength: 0x7fffffff }),
    status: Status.RESOURCE_EXHAUSTED,
    message: /message size 2147483647 is larger than configured readMaxBytes/,
  },
  {
    name: "compressed flag without grpc-encoding",
    body: envelope(query, { flags: 1 }),
    status: Status.INVALID_ARGUMENT,
    message: /flagged compressed but the request names no grpc-encoding/,
  },
  {
    name: "an encoding the server does not know",
    body: envelope(query, { flags: 1 }),
    headers: { "grpc-encoding": "snappy" },
    status: Status.UNIMPLEMENTED,
    message: /unknown compression "snappy"/,
  },
  {
    name: "gzip flag over bytes that are not gzip",
    body: envelope(Buffer.from("not gzip at all"), { flags: 1 }),
    headers: { "grpc-encoding": "gzip" },
    status: Status.INVALID_ARGUMENT,
    message: /decompression failed/,
  },
  {
    name: "a gzip bomb (1 MiB inflated from a few KiB)",
    body: envelope(gzipSync(Buffer.concat([lenField(1, "x"), Buffer.alloc(1 << 20, 0x61)])), { flags: 1 }),
    headers: { "grpc-encoding": "gzip" },
    status: Status.RESOURCE_EXHAUSTED,
    message: /larger than configured readMaxBytes 65536 after decompression/,
  },
  {
    name: "deflate flag over bytes that are not zlib",
    body: envelope(Buffer.from("not deflate at all"), { flags: 1 }),
    headers: { "grpc-encoding": "deflate" },
    status: Status.INVALID_ARGUMENT,
    message: /flagged deflate-compressed but is not valid zlib/,
  },
  {
    name: "a deflate bomb (1 MiB inflated from a few KiB)",
    body: envelope(deflateSync(Buffer.concat([lenField(1, "x"), Buffer.alloc(1 << 20, 0x61)])), { flags: 1 }),
    headers: { "grpc-encoding": "deflate" },
    status: Status.RESOURCE_EXHAUSTED,
    message: /larger than configured readMaxBytes 65536 after decompression/,
  },
  { name: "no message at all", body: Buffer.alloc(0), status: Status.UNIMPLEMENTED, message: /missing input message/ },
  {
    name: "two messages on a unary method",
    body: Buffer.concat([envelope(query), envelope(query)]),
    status: Status.UNIMPLEMENTED,
    message: /extra input message/,
  },
  {
    name: "a malformed grpc-timeout",
    body: envelope(query),
    headers: { "grpc-timeout": "soon" },
    status: Status.INVALID_ARGUMENT,
    message: /invalid grpc timeout value: soon/,
  },
];

function assertClean(res: WireResult, expected: { status: number; message: RegExp }, label: string): void {
  assert.notEqual(res.grpcStatus, undefined, `${label}: no grpc-status (HTTP ${res.httpStatus})`);
  assert.notEqual(res.grpcStatus, Status.INTERNAL, `${label}: INTERNAL: ${res.grpcMessage}`);
  assert.notEqual(res.grpcStatus, Status.UNKNOWN, `${label}: UNKNOWN: ${res.grpcMessage}`);
  assert.equal(res.grpcStatus, expected.status, `${label}: ${res.grpcStatus} ${res.grpcMessage}`);
  assert.match(res.grpcMessage, expected.message, label);
  assert.doesNotMatch(res.grpcMessage, /at .*\.(ts|js):\d+/, `${label}: stack trace in message`);
}

describe("malformed gRPC input against the running service", () => {
  const target = wireTarget();

  /** A valid call on the shared HTTP/2 session and over Connect: the server is still answering. */
  async function stillServing(): Promise<void> {
    const grpc = await target.h2.call(SEMANTIC, envelope(Buffer.concat([query, varintField(2, 3)])), target.auth);
    assert.equal(grpc.grpcStatus, Status.OK, grpc.grpcMessage);
    const connect = await connectUnary(target.url, VECTOR, Buffer.concat([query, varintField(2, 3)]), target.auth);
    assert.equal(connect.httpStatus, 200, connect.grpcMessage);
  }

  for (const c of MESSAGE_CASES) {
    test(`${c.name}: gRPC, gRPC-Web and Connect binary`, async () => {
      assertClean(await target.h2.call(c.path, envelope(c.payload), target.auth), c, `grpc ${c.name}`);
      assertClean(await grpcWebCall(target.url, c.path, envelope(c.payload), target.auth), c, `grpc-web ${c.name}`);
      const connect = await connectUnary(target.url, c.path, c.payload, target.auth);
      assertClean(connect, c, `connect ${c.name}`);
      // Connect's HTTP mapping: invalid_argument is 400, resource_exhausted 429.
      assert.equal(connect.httpStatus, c.status === Status.INVALID_ARGUMENT ? 400 : 429);
    });
  }

  for (const c of FRAME_CASES) {
    test(`${c.name}: gRPC and gRPC-Web`, async () => {
      assertClean(await target.h2.call(SEMANTIC, c.body, { ...target.auth, ...c.headers }), c, `grpc ${c.name}`);
      // Size cases too: a body refused before it is read no longer stalls an HTTP/1.1 client
      // (test/faults/oversized-messages.test.ts).
      assertClean(
        await grpcWebCall(target.url, SEMANTIC, c.body, { ...target.auth, ...c.headers }),
        c,
        `grpc-web ${c.name}`,
      );
    });
  }

  test("a message over MAX_BODY_BYTES is RESOURCE_EXHAUSTED over gRPC, naming the limit", async () => {
    const payload = Buffer.concat([query, lenField(3, "s".repeat(MAX_BODY + 10))]);
    // On the shared session: the server resets the refused stream with NO_ERROR, so the session
    // carries the next call (stillServing) and does not hold shutdown open.
    assertClean(
      await target.h2.call(SEMANTIC, envelope(payload), target.auth),
      { status: Status.RESOURCE_EXHAUSTED, message: /larger than configured readMaxBytes 65536/ },
      "oversized",
    );
    await stillServing();
  });

  test("an unknown method is UNIMPLEMENTED over gRPC and gRPC-Web, 404 over Connect", async () => {
    const expected = { status: Status.UNIMPLEMENTED, message: /unknown method \/threadsight\.v1\.SearchService\/Nope/ };
    assertClean(
      await target.h2.call("/threadsight.v1.SearchService/Nope", envelope(query), target.auth),
      expected,
      "grpc",
    );
    assertClean(
      await grpcWebCall(target.url, "/threadsight.v1.SearchService/Nope", envelope(query), target.auth),
      expected,
      "grpc-web",
    );
    const connect = await connectUnary(target.url, "/threadsight.v1.SearchService/Nope", query, target.auth);
    assert.equal(connect.httpStatus, 404);
  });

  test("malformed bytes without a key are still a decode error, not a crash or an INTERNAL", async () => {
    // Decoding precedes authentication in Connect's pipeline; what matters is the clean status.
    const res = await target.h2.call(SEMANTIC, envelope(Buffer.from([0xff, 0xff, 0xff])));
    assertClean(res, { status: Status.INVALID_ARGUMENT, message: /field tag/ }, "no key");
  });

  const JSON_CASES: { name: string; body: string; message: RegExp }[] = [
    { name: "limit as the string NaN", body: '{"query":"crm","limit":"NaN"}', message: /limit.*NaN/ },
    { name: "limit as Infinity", body: '{"query":"crm","limit":"Infinity"}', message: /limit/ },
    { name: "limit 1e309 (overflows to Infinity)", body: '{"query":"crm","limit":1e309}', message: /limit.*Infinity/ },
    { name: "limit 1e12", body: '{"query":"crm","limit":1e12}', message: /limit/ },
    { name: "a fractional limit", body: '{"query":"crm","limit":1.5}', message: /limit.*1\.5/ },
    {
      name: "a negative limit",
      body: '{"query":"crm","limit":-1}',
      message: /^limit must be between 1 and 100, got -1$/,
    },
    { name: "a lone surrogate in query", body: '{"query":"\\ud800"}', message: /query.*UTF/ },
    { name: "a duplicate key", body: '{"query":"a","query":"b"}', message: /duplicate object key "query"/ },
    { name: "an array body", body: "[1]", message: /SemanticSearchRequest/ },
    { name: "a null body", body: "null", message: /SemanticSearchRequest/ },
    { name: "a number where a string belongs", body: '{"query":1}', message: /query.*expected string/ },
    { name: "broken JSON", body: '{"query":', message: /SemanticSearchRequest|JSON/ },
  ];
  for (const c of JSON_CASES) {
    test(`Connect JSON: ${c.name} is invalid_argument`, async () => {
      const res = await connectUnary(target.url, SEMANTIC, c.body, target.auth, false);
      assert.equal(res.httpStatus, 400, `${res.httpStatus} ${res.grpcMessage}`);
      assert.equal(res.connectCode, "invalid_argument");
      assert.match(res.grpcMessage, c.message);
    });
  }

  test("the quoted int32 form is valid proto3 JSON and is served", async () => {
    const res = await connectUnary(target.url, SEMANTIC, '{"query":"crm","limit":"10"}', target.auth, false);
    assert.equal(res.httpStatus, 200, res.grpcMessage);
  });

  test("after all of that the process still serves valid calls, on the old session and on new ones", async () => {
    await stillServing();
    const fresh = new H2Client(target.url);
    try {
      const res = await fresh.call(LEADS, envelope(Buffer.concat([query, varintField(3, 0)])), target.auth);
      assert.equal(res.grpcStatus, Status.OK, res.grpcMessage);
    } finally {
      fresh.close();
    }
    const health = await fetch(`${target.url}/healthz`);
    assert.equal(health.status, 200);
  });
});
