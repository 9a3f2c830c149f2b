/**
 * grpcurl against the real service decodes our error details by name: reflection serves
 * google/rpc/error_details.proto and status.proto, so a 429 (RESOURCE_EXHAUSTED) and a 400
 * (INVALID_ARGUMENT) print ErrorInfo's reason, domain and metadata instead of "is not
 * recognized; see @value for raw binary". grpcurl comes from scripts/install-grpcurl.sh; the
 * suite fails when it is missing and CI (or REQUIRE_GRPCURL=1) is set.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { missingBackend } from "../harness/backend-policy.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

/** GRPCURL_BIN, else the project's tool cache, else PATH. */
function findGrpcurl(): string | undefined {
  const cache = process.env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache", "threadsight");
  const candidates = [
    process.env.GRPCURL_BIN,
    path.join(cache, "bin", "grpcurl"),
    ...(process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "grpcurl")),
  ];
  return candidates.find((c): c is string => Boolean(c) && existsSync(c as string));
}

const GRPCURL = findGrpcurl();
const skip = GRPCURL !== undefined ? false : missingBackend("grpcurl", "run scripts/install-grpcurl.sh");

function grpcurl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(GRPCURL as string, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") reject(err);
      else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

/** The JSON objects of grpcurl's "Details:" list, parsed. */
function details(stderr: string): Record<string, unknown>[] {
  const text = stderr.slice(stderr.indexOf("Details:") + "Details:".length);
  // Each detail is "N)<tab>{" followed by indented JSON lines up to the next "N)" or the end.
  return text
    .split(/^\s*\d+\)\s*/m)
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk.startsWith("{"))
    .map((chunk) => JSON.parse(chunk) as Record<string, unknown>);
}

describe("grpcurl decodes error details by name through reflection", { skip }, () => {
  let svc: RunningService;
  before(async () => {
    svc = await startService();
  });
  after(async () => svc?.stop());

  const call = (key: string, body: unknown) =>
    grpcurl([
      "-plaintext",
      "-H",
      `authorization: Bearer ${key}`,
      "-d",
      JSON.stringify(body),
      svc.address,
      "threadsight.v1.SearchService/SemanticSearch",
    ]);

  test("400 INVALID_ARGUMENT: ErrorInfo (and BadRequest) fields by name", async () => {
    const key = await svc.createKey("enterprise");
    const res = await call(key, { query: "   " });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /Code: InvalidArgument/);
    assert.doesNotMatch(res.stderr, /not recognized/, res.stderr);
    const found = details(res.stderr);
    const info = found.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");
    assert.ok(info, res.stderr);
    assert.equal(info.reason, "MISSING_FIELD");
    assert.equal(typeof info.domain, "string");
    assert.ok((info.domain as string).length > 0);
    assert.ok(
      found.some((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest"),
      res.stderr,
    );
  });

  test("429 RESOURCE_EXHAUSTED: ErrorInfo, RetryInfo and QuotaFailure fields by name", async () => {
    const key = await svc.createKey("starter", "tiny", { ratePerMinute: 1 });
    await call(key, { query: "first call spends the minute" });
    const res = await call(key, { query: "second call is refused" });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /Code: ResourceExhausted/, res.stderr);
    assert.doesNotMatch(res.stderr, /not recognized/, res.stderr);
    const found = details(res.stderr);
    const info = found.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");
    assert.ok(info, res.stderr);
    assert.equal(info.reason, "RATE_LIMITED");
    assert.ok(
      found.some((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo" && typeof d.retryDelay === "string"),
      res.stderr,
    );
  });
});
