/**
 * The short CI version of `npm run load`: the same harness (real service in its own process,
 * seeded sample posts, the key mix, REST through autocannon and gRPC through ghz at once) for
 * ~25 s at a low fixed rate, no capacity ramp. It asserts what must hold at any speed: no
 * unexpected error, and every successful call counted exactly once in usage while the expected
 * 429s on the Lite and Free keys are not. Latency and memory are reported by `npm run load`,
 * never asserted here.
 *
 * ghz is a backend like PostgreSQL: missing, the suite skips on a developer machine and fails
 * in CI (scripts/setup-test-env.sh installs it).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { missingBackend } from "../harness/backend-policy.js";
import { corporaSkip } from "../harness/seed.js";
import { findGhz } from "./grpc-load.js";
import { runLoad } from "./load-run.js";
import { OPERATION_NAMES } from "./workload.js";

function skipReason(): false | string {
  const data = corporaSkip();
  if (data !== false) return data;
  if (findGhz() === undefined)
    return missingBackend("ghz", "no ghz binary; run `bash scripts/install-load-tools.sh` or set GHZ_BIN");
  return false;
}

test("sustained mixed load: no unexpected errors, usage counted exactly once", {
  skip: skipReason(),
  timeout: 600_000,
}, async () => {
  const lines: string[] = [];
  const result = await runLoad({
    posts: 300,
    durationS: 25,
    intervalS: 5,
    // 8 req/s of the mix (one per stream) plus 6 req/s on the throttled keys.
    rate: 8,
    loadFraction: 0.8,
    ramp: { startRate: 8, factor: 1.5, maxSteps: 1, stepSeconds: 5 },
    log: (line) => lines.push(line),
  });
  const context = `answers: ${JSON.stringify(result.statusesAll)}\nservice log tail:\n${result.serviceLogTail.slice(-2000)}`;
  assert.equal(result.unexpected, 0, `unexpected errors or capped tool runs\n${context}`);
  for (const s of result.streams) assert.equal(s.answered, s.requested, `${s.id}: every call asked for was answered`);

  for (const u of result.usage) {
    const seen = `${u.label}: tools saw ${JSON.stringify(u.clientOkByOp)}, store ${JSON.stringify(u.storeByOp)}, rpc used ${u.rpcUsed}`;
    assert.equal(u.storeUsed, u.clientOk, `threadsight usage: used = OK calls (${seen})`);
    assert.equal(u.rpcUsed, u.clientOk, `GET /api/v1/usage: used = OK calls (${seen})`);
    for (const op of OPERATION_NAMES)
      assert.equal(u.storeByOp[op], u.clientOkByOp[op], `${op} rows = OK calls (${seen})`);
    assert.equal(u.clientOther, 0, `${u.label}: no answer other than OK and 429`);
  }
  const byLabel = new Map(result.usage.map((u) => [u.label, u]));
  for (const label of ["enterprise", "pro", "starter"]) {
    const u = byLabel.get(label)!;
    assert.ok(u.clientOk > 0 && u.clientThrottled === 0, `${label} carried load and was never throttled`);
  }
  // The refusals happened, so "not counted" was really tested: Lite's 50/min is exceeded at
  // 4 req/s within the run, and Free allows 3 calls per week.
  const lite = byLabel.get("lite")!;
  const free = byLabel.get("free")!;
  assert.ok(
    lite.clientThrottled > 0 && lite.clientOk > 0,
    `lite: some calls admitted and some refused (${lite.clientOk} OK, ${lite.clientThrottled} 429)`,
  );
  assert.equal(free.clientOk, 3, "free: exactly its weekly quota of 3 calls admitted");
  assert.ok(free.clientThrottled > 0, "free: the rest refused");
});
