/**
 * HealthMonitor on its own: statuses from checks, the overall rule, change events, timeouts,
 * interval polling, and stopping.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { HealthEvent } from "../../src/grpc/health-monitor.js";
import { HealthMonitor, OVERALL } from "../../src/grpc/health-monitor.js";

/** A check whose answer the test sets, counting its calls. */
function switchable(initial: boolean) {
  const state = { up: initial, calls: 0 };
  const check = async (): Promise<boolean> => {
    state.calls += 1;
    return state.up;
  };
  return { state, check };
}

function record(monitor: HealthMonitor): HealthEvent[] {
  const events: HealthEvent[] = [];
  monitor.subscribe((e) => events.push(e));
  return events;
}

test("with no checks the server is SERVING; a new check is NOT_SERVING until it passes", async () => {
  const monitor = new HealthMonitor({ intervalMs: 60_000 });
  assert.equal(monitor.get(OVERALL), "SERVING");
  const events = record(monitor);
  const index = switchable(true);
  monitor.register("threadsight.v1.SearchService", index.check);
  assert.equal(monitor.get("threadsight.v1.SearchService"), "NOT_SERVING");
  assert.equal(monitor.get(OVERALL), "NOT_SERVING");
  await monitor.poll();
  assert.equal(monitor.get("threadsight.v1.SearchService"), "SERVING");
  assert.equal(monitor.get(OVERALL), "SERVING");
  assert.deepEqual(events, [
    { type: "change", service: "threadsight.v1.SearchService", status: "NOT_SERVING" },
    { type: "change", service: "", status: "NOT_SERVING" },
    { type: "change", service: "threadsight.v1.SearchService", status: "SERVING" },
    { type: "change", service: "", status: "SERVING" },
  ]);
  assert.equal(monitor.get("unknown.Service"), undefined);
  monitor.stop();
});

test("overall is SERVING only when every check passes; unchanged statuses emit nothing", async () => {
  const monitor = new HealthMonitor({ intervalMs: 60_000 });
  const a = switchable(true);
  const b = switchable(false);
  monitor.register("a", a.check).register("b", b.check);
  await monitor.poll();
  assert.deepEqual(Object.fromEntries(monitor.snapshot()), { "": "NOT_SERVING", a: "SERVING", b: "NOT_SERVING" });
  const events = record(monitor);
  await monitor.poll();
  assert.deepEqual(events, []);
  b.state.up = true;
  await monitor.poll();
  assert.deepEqual(events, [
    { type: "change", service: "b", status: "SERVING" },
    { type: "change", service: "", status: "SERVING" },
  ]);
  monitor.stop();
});

test("a check that throws or exceeds the timeout fails, is reported, and its signal aborts", async () => {
  const failures: [string, string][] = [];
  const monitor = new HealthMonitor({
    intervalMs: 60_000,
    checkTimeoutMs: 50,
    onCheckFailure: (service, reason) => failures.push([service, String(reason)]),
  });
  let slowSignal: AbortSignal | undefined;
  monitor.register("throws", async () => {
    throw new Error("connection refused");
  });
  monitor.register("slow", (signal) => {
    slowSignal = signal;
    return new Promise<boolean>(() => {});
  });
  monitor.register("false", async () => false);
  const started = Date.now();
  await monitor.poll();
  assert.ok(Date.now() - started < 1000, "a hung check must not hold the poll past its timeout");
  assert.equal(monitor.get("throws"), "NOT_SERVING");
  assert.equal(monitor.get("slow"), "NOT_SERVING");
  assert.equal(slowSignal?.aborted, true);
  assert.deepEqual(failures.map(([s]) => s).sort(), ["false", "slow", "throws"]);
  assert.match(failures.find(([s]) => s === "throws")?.[1] ?? "", /connection refused/);
  assert.match(failures.find(([s]) => s === "slow")?.[1] ?? "", /longer than 50 ms/);
  monitor.stop();
});

test("start() polls at once and then on the interval", async () => {
  const monitor = new HealthMonitor({ intervalMs: 30 });
  const backend = switchable(true);
  monitor.register("backend", backend.check);
  await monitor.start();
  assert.equal(monitor.get("backend"), "SERVING");
  const changed = new Promise<HealthEvent>((resolve) => monitor.subscribe(resolve));
  backend.state.up = false;
  // The monitor's timer is unref'd (it must not keep a process alive); hold the loop open here.
  const keepAlive = setInterval(() => {}, 1000);
  try {
    assert.deepEqual(await changed, { type: "change", service: "backend", status: "NOT_SERVING" });
  } finally {
    clearInterval(keepAlive);
  }
  monitor.stop();
  const callsAtStop = backend.state.calls;
  await sleep(100);
  assert.equal(backend.state.calls, callsAtStop, "no polls after stop()");
});

test("concurrent polls share one run of the checks", async () => {
  const monitor = new HealthMonitor({ intervalMs: 60_000 });
  const backend = switchable(true);
  monitor.register("backend", backend.check);
  await Promise.all([monitor.poll(), monitor.poll(), monitor.poll()]);
  assert.equal(backend.state.calls, 1);
  monitor.stop();
});

test("shutdown() marks everything NOT_SERVING, then subscribers hear that it stopped", async () => {
  const monitor = new HealthMonitor({ intervalMs: 60_000 });
  monitor.register("backend", switchable(true).check);
  await monitor.poll();
  const events = record(monitor);
  monitor.shutdown();
  assert.deepEqual(events, [
    { type: "change", service: "backend", status: "NOT_SERVING" },
    { type: "change", service: "", status: "NOT_SERVING" },
    { type: "stopped" },
  ]);
  assert.equal(monitor.stopped, true);
  assert.equal(monitor.subscriberCount, 0);
  assert.throws(() => monitor.register("late", async () => true), /stopped/);
  await assert.rejects(monitor.start(), /stopped/);

  const empty = new HealthMonitor();
  empty.shutdown();
  assert.equal(empty.get(OVERALL), "NOT_SERVING", "a draining server is not serving even with no checks");
});

test("registration rejects the reserved overall name, duplicates and bad options", () => {
  const monitor = new HealthMonitor();
  assert.throws(() => monitor.register("", async () => true), /reserved/);
  monitor.register("a", async () => true);
  assert.throws(() => monitor.register("a", async () => true), /already registered/);
  assert.throws(() => new HealthMonitor({ intervalMs: 0 }), RangeError);
  monitor.stop();
});

test("a throwing subscriber does not keep others from hearing a change", async () => {
  const monitor = new HealthMonitor();
  monitor.subscribe(() => {
    throw new Error("faulty");
  });
  const events = record(monitor);
  monitor.register("a", async () => true);
  assert.equal(events.length, 2);
  monitor.stop();
});

test("a non-gating check reports its own status without changing the overall one", async () => {
  let sourcesOk = true;
  const monitor = new HealthMonitor({ intervalMs: 60_000 });
  monitor.register("core", async () => true);
  monitor.register("threadsight.v1.Sources", async () => sourcesOk, { gating: false });
  await monitor.start();
  assert.equal(monitor.get("threadsight.v1.Sources"), "SERVING");
  assert.equal(monitor.get(OVERALL), "SERVING");
  sourcesOk = false;
  await monitor.poll();
  assert.equal(monitor.get("threadsight.v1.Sources"), "NOT_SERVING");
  assert.equal(monitor.get(OVERALL), "SERVING", "a failing non-gating part keeps the server in rotation");
  assert.deepEqual(
    [monitor.gates("core"), monitor.gates("threadsight.v1.Sources"), monitor.gates("nope")],
    [true, false, false],
  );
  monitor.shutdown();
  assert.equal(monitor.get("threadsight.v1.Sources"), "NOT_SERVING");
  assert.equal(monitor.get(OVERALL), "NOT_SERVING", "draining still takes everything down");
});
