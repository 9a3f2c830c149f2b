/**
 * Which Accept-Encoding values let a REST answer go gzipped (src/gateway/response-encoding.ts):
 * gzip named or allowed by `*`, with a q-value above 0, and a specific refusal beats `*`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { acceptsGzip, COMPRESS_MIN_BYTES, encodeAnswer } from "../../src/gateway/response-encoding.js";

describe("acceptsGzip", () => {
  it("reads names, wildcards and q-values", () => {
    const cases: [string | undefined, boolean][] = [
      [undefined, false],
      ["", false],
      ["identity", false],
      ["gzip", true],
      ["GZIP", true],
      ["x-gzip", true],
      ["br, gzip;q=0.5", true],
      ["gzip;q=0", false],
      ["gzip; q=0.0", false],
      ["*", true],
      ["*;q=0", false],
      ["gzip;q=0, *", false],
      ["br, deflate", false],
      ["gzip;q=nonsense", false],
    ];
    for (const [header, expected] of cases) assert.equal(acceptsGzip(header), expected, String(header));
  });
});

describe("encodeAnswer", () => {
  it("gzips from the threshold up, only for a client that accepts it", async () => {
    const big = JSON.stringify({ text: "x".repeat(COMPRESS_MIN_BYTES) });
    const out = await encodeAnswer(big, "gzip");
    assert.equal(out.encoding, "gzip");
    assert.equal(gunzipSync(out.body as Buffer).toString("utf8"), big);
    assert.deepEqual(await encodeAnswer(big, "identity"), { body: big, encoding: "" });
    const small = JSON.stringify({ text: "x".repeat(COMPRESS_MIN_BYTES - 20) });
    assert.deepEqual(await encodeAnswer(small, "gzip"), { body: small, encoding: "" });
  });
});
