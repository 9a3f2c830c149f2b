/**
 * Guessing keys is rate limited per client address and key id, end to end: wrong keys from one
 * loopback address are answered 401 until the policy's limit, then 429 AUTH_RATE_LIMITED with
 * Retry-After (even for the right secret of that id), while a second address (127.0.0.2,
 * loopback too) and other keys from the same address are unaffected. X-Forwarded-For names the
 * client only with TRUST_PROXY, on REST and gRPC alike.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { DEFAULT_AUTH_FAILURE_POLICY } from "../../src/limits/auth-failure-limiter.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { reason?: string; message?: string } };
}

/** POST /api/v1/search/vector from `localAddress` with `key`. */
function callFrom(url: string, localAddress: string, key: string, forwardedFor?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor;
    const req = http.request(
      `${url}/api/v1/search/vector`,
      { method: "POST", localAddress, agent: false, headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers["retry-after"] as string | undefined,
            body: JSON.parse(text) as Answer["body"],
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ query: "crm", limit: 1 }));
  });
}

/** A wrong key that looks exactly like a real one: same id, different secret. */
function wrongSecret(key: string, i: number): string {
  const tail = key.slice(-6);
  return `${key.slice(0, -6)}${(Number.parseInt(tail, 36) + i + 1).toString(36).padStart(6, "0").slice(-6)}`;
}

describe("brute-forcing keys is limited per address", () => {
  let svc: RunningService;
  let key: string;
  before(async () => {
    svc = await startService();
    key = await svc.createKey("enterprise");
  });
  after(async () => svc?.stop());

  test("wrong keys: 401 up to the limit, then 429 with Retry-After; another address is unaffected", async () => {
    const attacker = "127.0.0.1";
    const { maxFailures, blockSeconds } = DEFAULT_AUTH_FAILURE_POLICY;
    assert.equal((await callFrom(svc.url, attacker, key)).status, 200, "the right key works before the attack");
    const statuses: number[] = [];
    let blocked: Answer | undefined;
    for (let i = 0; i < maxFailures + 3 && blocked === undefined; i++) {
      const res = await callFrom(svc.url, attacker, wrongSecret(key, i));
      statuses.push(res.status);
      if (res.status === 429) blocked = res;
      else assert.equal(res.status, 401, JSON.stringify(res.body));
    }
    assert.ok(blocked, `never blocked: ${statuses.join(",")}`);
    assert.ok(statuses.filter((s) => s === 401).length >= maxFailures, `blocked too early: ${statuses.join(",")}`);
    assert.equal(blocked.body.error?.reason, "AUTH_RATE_LIMITED");
    assert.match(blocked.body.error?.message ?? "", /too many failed authentication attempts/);
    const retry = Number(blocked.retryAfter);
    assert.ok(retry > 0 && retry <= blockSeconds, `Retry-After ${blocked.retryAfter}`);

    // Blocked means blocked: the right key from that address is refused too, so a lucky guess
    // cannot be confirmed.
    assert.equal((await callFrom(svc.url, attacker, key)).status, 429);

    // Another address keeps working and is judged on its own.
    assert.equal((await callFrom(svc.url, "127.0.0.2", key)).status, 200);
    assert.equal((await callFrom(svc.url, "127.0.0.2", wrongSecret(key, 99))).status, 401);
  });
});

/** Fails `key`'s id from `localAddress` (as `forwardedFor`, when given) until it is blocked. */
async function lockOut(url: string, localAddress: string, key: string, forwardedFor?: string): Promise<void> {
  for (let i = 0; i <= DEFAULT_AUTH_FAILURE_POLICY.maxFailures; i++) {
    const res = await callFrom(url, localAddress, wrongSecret(key, i), forwardedFor);
    if (res.status === 429) return;
    assert.equal(res.status, 401);
  }
  assert.equal(
    (await callFrom(url, localAddress, wrongSecret(key, 500), forwardedFor)).status,
    429,
    "the key id is locked",
  );
}

describe("a locked key does not lock out other keys from the same address", () => {
  let svc: RunningService;
  before(async () => {
    svc = await startService();
  });
  after(async () => svc?.stop());

  test("a valid key is admitted while another key from the same address is locked", async () => {
    const attacked = await svc.createKey("pro");
    const bystander = await svc.createKey("enterprise");
    await lockOut(svc.url, "127.0.0.3", attacked);
    assert.equal(
      (await callFrom(svc.url, "127.0.0.3", attacked)).status,
      429,
      "the attacked id stays locked, right secret or not",
    );
    assert.equal(
      (await callFrom(svc.url, "127.0.0.3", bystander)).status,
      200,
      "another key from the same address works",
    );
    assert.equal(
      (await callFrom(svc.url, "127.0.0.3", wrongSecret(bystander, 1))).status,
      401,
      "and is judged on its own failures",
    );
  });

  test("without TRUST_PROXY, X-Forwarded-For is ignored: the socket address is what counts", async () => {
    const key = await svc.createKey("pro");
    await lockOut(svc.url, "127.0.0.4", key, "203.0.113.7");
    const res = await callFrom(svc.url, "127.0.0.4", key, "198.51.100.9");
    assert.equal(res.status, 429, "a forged X-Forwarded-For does not escape the block");
  });
});

describe("with TRUST_PROXY, X-Forwarded-For from a trusted proxy names the client", () => {
  let svc: RunningService;
  before(async () => {
    svc = await startService({ env: { TRUST_PROXY: "127.0.0.0/8" } });
  });
  after(async () => svc?.stop());

  test("clients behind one proxy are limited apart, on REST and gRPC", async () => {
    const key = await svc.createKey("pro");
    await lockOut(svc.url, "127.0.0.1", key, "203.0.113.7");
    assert.equal(
      (await callFrom(svc.url, "127.0.0.1", key, "203.0.113.7")).status,
      429,
      "the guessing client is blocked",
    );
    assert.equal(
      (await callFrom(svc.url, "127.0.0.1", key, "198.51.100.9")).status,
      200,
      "another client behind the proxy is not",
    );

    const client = createGrpcJsClient(SearchService, svc.address);
    try {
      const blocked = await callUnaryWithMetadata(
        client,
        SearchService.method.vectorSearch,
        { query: "crm", limit: 1 },
        { authorization: `Bearer ${key}`, "x-forwarded-for": "203.0.113.7" },
      );
      assert.equal(blocked.error?.code, grpc.status.RESOURCE_EXHAUSTED, blocked.error?.details);
      const other = await callUnaryWithMetadata(
        client,
        SearchService.method.vectorSearch,
        { query: "crm", limit: 1 },
        { authorization: `Bearer ${key}`, "x-forwarded-for": "198.51.100.9" },
      );
      assert.equal(other.error, undefined, other.error?.details);
    } finally {
      client.close();
    }
  });
});
