import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHostPort } from "../../src/index/weaviate/connect.js";
import { describeMeta, fromProperties, parseMeta, postUuid, toProperties } from "../../src/index/weaviate/schema.js";
import { makePost } from "./synthetic.js";

describe("weaviate-schema", () => {
  it("round-trips the provenance through the collection description", () => {
    const meta = { embeddingModel: 'use-lite "v2"', dimensions: 512, layout: 1 };
    assert.deepEqual(parseMeta(describeMeta(meta)), meta);
    assert.equal(parseMeta(undefined), undefined);
    assert.equal(parseMeta("some other collection"), undefined);
    assert.equal(parseMeta("threadsight-meta:{not json"), undefined);
  });

  it("derives a stable uuid v5 per post id", () => {
    assert.equal(postUuid("reddit:abc"), postUuid("reddit:abc"));
    assert.notEqual(postUuid("reddit:abc"), postUuid("reddit:abd"));
    assert.match(postUuid("hackernews:1"), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("maps a post to properties and back, dates as Date or RFC 3339 text", () => {
    const { vector: _v, ...post } = makePost({
      nativeId: "x",
      title: "T",
      created: Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      leadType: "comparison",
      leadScore: 12.5,
    });
    const props = toProperties({ ...post, vector: new Float32Array(1) });
    assert.deepEqual(fromProperties(props), post);
    assert.deepEqual(fromProperties({ ...props, created: "2024-02-29T23:59:59.999Z" }), post);
  });
});

describe("parseHostPort", () => {
  it("reads host:port, URLs and bare hosts", () => {
    assert.deepEqual(parseHostPort("127.0.0.1:50052", "h", 50051), { host: "127.0.0.1", port: 50052 });
    assert.deepEqual(parseHostPort(undefined, "h", 50051), { host: "h", port: 50051 });
    assert.deepEqual(parseHostPort("grpc.example", "h", 50051), { host: "grpc.example", port: 50051 });
    assert.deepEqual(parseHostPort("https://grpc.example", "h", 50051), {
      host: "grpc.example",
      port: 443,
      secure: true,
    });
    assert.deepEqual(parseHostPort("http://g:6000", "h", 50051), { host: "g", port: 6000, secure: false });
  });
});
