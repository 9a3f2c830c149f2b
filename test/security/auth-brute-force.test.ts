/**
 * Guessing keys is rate limited per client address, end to end: wrong keys from one loopback
 * address are answered 401 until the policy's limit, then 429 AUTH_RATE_LIMITED with Retry-After
 * (even for the right key), while a second address (127.0.0.2, loopback too) is unaffected.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { DEFAULT_AUTH_FAILURE_POLICY } from "../../src/limits/auth-failure-limiter.js";
import { startService } from "../harness/service.js";
import type { RunningService } from "../harness/service.js";

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { reason?: string; message?: string } };
}

/** POST /api/v1/search/vector from `localAddress` with `key`. */
function callFrom(url: string, localAddress: string, key: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/api/v1/search/vector`,
      { method: "POST", localAddress, agent: false, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined, body: JSON.parse(text) as Answer["body"] }));
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
