/**
 * The grpc-message encoding (src/transport/grpc-message.ts): what the gRPC spec leaves plain
 * stays plain, everything else is %XX of its UTF-8 bytes, and each decoder a client of ours
 * uses (grpc-js's decodeURI, connect-es's decodeURIComponent) reads back the original text.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { encodeGrpcMessage, respecGrpcMessage } from "../../src/transport/grpc-message.js";

const SAMPLES = [
  "the date range must span at most 3660 days, got 9802",
  'start_date: must be YYYY-MM-DD (got "2024/01/01")',
  "unknown method /threadsight.v1.SearchService/NoSuch?x=1&y=2#z",
  "100% sure; a+b=$c @ d",
  "café naïve — 日本語 🙂",
  "tab\there\nnewline\r\u0000nul\u007fdel",
  "",
];

describe("grpc-message encoding", () => {
  test("printable ASCII but '%' stays as it is", () => {
    assert.equal(encodeGrpcMessage("a, b: c/d?e=f&g#h;i+j$k@l"), "a, b: c/d?e=f&g#h;i+j$k@l");
    assert.equal(encodeGrpcMessage("50%"), "50%25");
  });

  test("control characters and non-ASCII become their UTF-8 bytes", () => {
    assert.equal(encodeGrpcMessage("é\n"), "%C3%A9%0A");
    assert.equal(encodeGrpcMessage("\u007f"), "%7F");
    assert.equal(encodeGrpcMessage("🙂"), "%F0%9F%99%82");
  });

  test("decodeURI and decodeURIComponent both read back every sample", () => {
    for (const text of SAMPLES) {
      const wire = encodeGrpcMessage(text);
      assert.match(wire, /^[\x20-\x7e]*$/);
      assert.equal(decodeURI(wire), text);
      assert.equal(decodeURIComponent(wire), text);
    }
  });

  test("a trailer in connect-es's encoding is rewritten; others are left alone", () => {
    for (const text of SAMPLES) {
      const trailer = new Headers({ "grpc-message": encodeURIComponent(text) });
      respecGrpcMessage(trailer);
      assert.equal(trailer.get("grpc-message"), encodeGrpcMessage(text));
    }
    const broken = new Headers({ "grpc-message": "bad %E0%A4 escape" });
    respecGrpcMessage(broken);
    assert.equal(broken.get("grpc-message"), "bad %E0%A4 escape");
    const none = new Headers();
    respecGrpcMessage(none);
    assert.equal(none.get("grpc-message"), null);
  });
});
