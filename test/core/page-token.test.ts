import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError } from "../../src/errors/app-error.js";
import { decodePageToken, encodePageToken, requestFingerprint } from "../../src/core/page-token.js";

test("a page token round-trips and is tied to its request", () => {
  const f = requestFingerprint(["semantic", "crm", []]);
  assert.equal(decodePageToken("", f, 10), 0);
  assert.equal(decodePageToken(encodePageToken(20, f), f, 10), 20);
  const other = requestFingerprint(["semantic", "erp", []]);
  assert.throws(() => decodePageToken(encodePageToken(20, f), other, 10), (e: unknown) => e instanceof AppError && /different query/.test(e.message));
  assert.throws(() => decodePageToken("not-a-token", f, 10), (e: unknown) => e instanceof AppError && e.metadata.field === "page_token");
  assert.throws(() => decodePageToken(encodePageToken(995, f), f, 10), (e: unknown) => e instanceof AppError && e.kind === "OUT_OF_RANGE");
});
