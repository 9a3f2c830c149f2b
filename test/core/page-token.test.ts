import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { PageTokens, requestFingerprint } from "../../src/core/page-token.js";
import { AppError } from "../../src/errors/app-error.js";
import { serverSecret } from "../../src/secrets/server-secret.js";

const forged = (e: unknown): boolean =>
  e instanceof AppError &&
  e.kind === "INVALID_ARGUMENT" &&
  e.metadata.field === "page_token" &&
  /not a token this service issued/.test(e.message);

test("a page token round-trips and is tied to its request", () => {
  const tokens = new PageTokens(randomBytes(32));
  const f = requestFingerprint(["semantic", "crm", []]);
  assert.equal(tokens.decode("", f, 10), 0);
  assert.equal(tokens.decode(tokens.encode(20, f), f, 10), 20);
  const other = requestFingerprint(["semantic", "erp", []]);
  assert.throws(
    () => tokens.decode(tokens.encode(20, f), other, 10),
    (e: unknown) => e instanceof AppError && /different query/.test(e.message),
  );
  assert.throws(() => tokens.decode("not-a-token", f, 10), forged);
  assert.throws(
    () => tokens.decode(tokens.encode(995, f), f, 10),
    (e: unknown) => e instanceof AppError && e.kind === "OUT_OF_RANGE",
  );
});

test("a forged or tampered token is refused as INVALID_ARGUMENT naming page_token", () => {
  const tokens = new PageTokens(randomBytes(32));
  const f = requestFingerprint(["vector", "crm", []]);
  // The old unsigned form: anyone could write it for any offset.
  const unsigned = Buffer.from(JSON.stringify({ o: 500, f })).toString("base64url");
  assert.throws(() => tokens.decode(unsigned, f, 10), forged);
  // A real token with its offset changed, signature kept.
  const [, signature] = tokens.encode(10, f).split(".");
  const tampered = `${Buffer.from(JSON.stringify({ o: 500, f })).toString("base64url")}.${signature}`;
  assert.throws(() => tokens.decode(tampered, f, 10), forged);
  // Signed with another secret (another deployment, or a guessed one).
  assert.throws(() => tokens.decode(new PageTokens(randomBytes(32)).encode(10, f), f, 10), forged);
  assert.throws(() => tokens.decode(`${tokens.encode(10, f)}.x`, f, 10), forged);
});

test("instances sharing a secret accept each other's tokens; a short secret is refused", () => {
  const secret = randomBytes(32);
  const f = requestFingerprint(["semantic", "crm", []]);
  assert.equal(new PageTokens(secret).decode(new PageTokens(Buffer.from(secret)).encode(30, f), f, 10), 30);
  assert.throws(() => new PageTokens(randomBytes(16)), RangeError);
});

test("the generated secret is kept under the data directory, owner-only, and survives a restart", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-secret-"));
  try {
    const first = await serverSecret(undefined, dir, "page-token.secret");
    const again = await serverSecret(undefined, dir, "page-token.secret");
    assert.ok(first.equals(again), "the same secret after a restart");
    assert.equal((await stat(path.join(dir, "page-token.secret"))).mode & 0o777, 0o600);
    assert.equal((await readFile(path.join(dir, "page-token.secret"), "utf8")).trim(), first.toString("utf8"));
    const configured = await serverSecret("a-configured-secret-shared-by-all-instances", dir, "page-token.secret");
    assert.equal(configured.toString("utf8"), "a-configured-secret-shared-by-all-instances");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
