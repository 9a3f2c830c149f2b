/**
 * Fault: the single Weaviate server is SIGKILLed under load and comes back (docs/RELIABILITY.md,
 * "Faults").
 *
 * Expected behaviour, written before the test:
 * - While Weaviate is down, every SemanticSearch/VectorSearch call (REST and gRPC, 4 concurrent
 *   clients, 8 s client deadline) fails with 503 / UNAVAILABLE, reason BACKEND_UNAVAILABLE; none
 *   ends in DEADLINE_EXCEEDED, a 500, or a dropped connection.
 * - grpc.health.v1.Health reports `threadsight.index` NOT_SERVING (and the overall status ""
 *   with it) and /readyz answers 503, within one health poll.
 * - Weaviate restarted on the same data directory and ports: without restarting Threadsight,
 *   searches succeed again, `threadsight.index` returns to SERVING and /readyz to 200.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type * as grpc from "@grpc/grpc-js";
import { Health, HealthCheckResponse_ServingStatus as Serving } from "../../gen/grpc/health/v1/health_pb.js";
import { callUnary, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import type { WeaviateNode } from "../harness/weaviate.js";
import { localWeaviateSkipReason, startWeaviateNode } from "../harness/weaviate.js";
import { startSearchLoad, tally } from "./search-load.js";

/**
 * The search load is closed-loop, so its rate follows the machine's speed (over 1,000 calls a
 * minute with the ONNX encoder): the key's rate is raised past it, because what these tests
 * judge is the index under a fault, not the limits (tested in test/limits/).
 */
const UNMETERED = { ratePerMinute: 1_000_000 };

/** Ingest checkpoints live in the data dir: a fresh one per run, so no other suite's progress is resumed. */
const ingestDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-fault-ingest-"));
process.once("exit", () => rmSync(ingestDir, { recursive: true, force: true }));

const skip = localWeaviateSkipReason() ?? corporaSkip();
const DEADLINE_MS = 8_000;

/** Polls `read` until it returns `want`, or fails after `timeoutMs`. */
async function eventually<T>(what: string, read: () => Promise<T>, want: T, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (last === want) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`${what}: still ${String(last)} after ${timeoutMs} ms, want ${String(want)}`);
}

describe("Weaviate killed under load, then restarted", { skip, timeout: 180_000 }, () => {
  let node: WeaviateNode;
  let svc: RunningService;
  let key: string;
  let health: grpc.Client;
  before(async () => {
    node = await startWeaviateNode();
    const env = {
      WEAVIATE_URL: node.httpUrl,
      WEAVIATE_GRPC_URL: node.grpcUrl,
      WEAVIATE_COLLECTION: `Recovery${Date.now()}`,
    };
    await seedSample({ ...env, THREADSIGHT_DATA_DIR: ingestDir }, [
      { file: "reddit_top2013/raw_csv/startups.csv", limit: 60 },
    ]);
    svc = await startService({ env });
    key = await svc.createKey("enterprise", "fault load", UNMETERED);
    health = createGrpcJsClient(Health, svc.address);
  });
  after(async () => {
    health?.close();
    await svc?.stop();
    await node?.stop();
  });

  const indexStatus = async (service = "threadsight.index"): Promise<string> =>
    Serving[(await callUnary(health, Health.method.check, { service })).status] ?? "?";
  const readyz = async (): Promise<number> => (await fetch(`${svc.url}/readyz`)).status;

  test("fails fast with 503 while down, recovers without a service restart", async (t) => {
    assert.equal(await indexStatus(), "SERVING");
    const load = startSearchLoad({ url: svc.url, address: svc.address, key, clients: 4, deadlineMs: DEADLINE_MS });
    let outcomes;
    let killedAt = 0;
    let restartedAt = 0;
    let restartBeganAt = 0;
    try {
      await load.waitForSuccesses(12);
      await node.kill();
      killedAt = Date.now();
      // Health is polled every 5 s; the index check turns NOT_SERVING at the next poll.
      await eventually("threadsight.index health", () => indexStatus(), "NOT_SERVING", 15_000);
      assert.equal(await indexStatus(""), "NOT_SERVING", "overall status follows the index");
      assert.equal(await readyz(), 503);
      // Let the clients run into the dead backend for a while (at least 12 calls).
      const deadline = Date.now() + 20_000;
      while (load.outcomes.filter((o) => o.startedAt > killedAt + 100).length < 12 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));

      restartBeganAt = Date.now();
      await node.restart();
      restartedAt = Date.now();
      await load.waitForSuccesses(12, { startedAfter: restartedAt });
      await eventually("threadsight.index health after restart", () => indexStatus(), "SERVING", 15_000);
      assert.equal(await indexStatus(""), "SERVING");
      assert.equal(await readyz(), 200);
    } finally {
      outcomes = await load.stop();
    }

    // Down = started after the kill, finished by the time the new process was launched (it may
    // serve a little before the harness sees it ready). "By", not "before": times are whole ms, and
    // the wait above can end in the very millisecond its twelfth call finished (CI once counted 11).
    const down = outcomes.filter((o) => o.startedAt > killedAt + 100 && o.startedAt + o.elapsedMs <= restartBeganAt);
    const firstBack = outcomes.find((o) => o.startedAt > restartedAt && o.status === 200);
    t.diagnostic(
      `while down: ${JSON.stringify(tally(down))}, slowest ${Math.max(...down.map((o) => o.elapsedMs))} ms; first success ${firstBack ? firstBack.startedAt + firstBack.elapsedMs - restartedAt : "never"} ms after the restart was ready`,
    );
    assert.ok(down.length >= 12, `calls while Weaviate was down: ${down.length}`);
    for (const o of down) {
      const unavailable = o.protocol === "rest" ? o.status === 503 : o.status === "UNAVAILABLE";
      assert.ok(
        unavailable && o.reason === "BACKEND_UNAVAILABLE",
        `a call while down answered ${o.status} ${o.reason}: ${JSON.stringify(tally(down))}`,
      );
      assert.ok(o.elapsedMs < DEADLINE_MS, `a call hung until its deadline (${o.elapsedMs} ms)`);
    }
    // Around the kill and the restart a call may still succeed or already fail; nothing else.
    const other = outcomes.filter((o) => o.status !== 200 && o.status !== 503 && o.status !== "UNAVAILABLE");
    const when = other.map(
      (o) =>
        `${o.protocol} ${o.status} started ${o.startedAt - killedAt} ms after the kill, ${o.startedAt - restartBeganAt} ms after the restart began, took ${o.elapsedMs} ms`,
    );
    assert.deepEqual(when, [], `only success or 503/UNAVAILABLE at any time: ${JSON.stringify(tally(outcomes))}`);
    const afterRecovery = outcomes.filter((o) => o.startedAt > restartedAt && o.status === 200);
    assert.ok(afterRecovery.length >= 12, `successful calls after the restart: ${afterRecovery.length}`);
    assert.ok(
      afterRecovery.some((o) => o.protocol === "grpc") && afterRecovery.some((o) => o.protocol === "rest"),
      "both protocols recover",
    );
  });
});
