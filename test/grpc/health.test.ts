/**
 * grpc.health.v1.Health over a real HTTP/2 server, called by a real @grpc/grpc-js client:
 * Check, List and Watch, with statuses following a check the test flips.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import * as grpc from "@grpc/grpc-js";
import type { HealthCheckResponse } from "../../gen/grpc/health/v1/health_pb.js";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../gen/grpc/health/v1/health_pb.js";
import { HealthMonitor } from "../../src/grpc/health-monitor.js";
import type { EcosystemServer } from "./fixture.js";
import { startEcosystemServer } from "./fixture.js";
import { callServerStream, callUnary, createGrpcJsClient } from "./grpc-js-client.js";

const SEARCH = "threadsight.v1.SearchService";

/** Reads a grpc-js server stream one message at a time, and its final status. */
class StreamReader<T> {
  private readonly buffered: T[] = [];
  private waiter: (() => void) | undefined;
  readonly status: Promise<grpc.StatusObject>;

  constructor(readonly call: grpc.ClientReadableStream<T>) {
    call.on("data", (m: T) => {
      this.buffered.push(m);
      this.waiter?.();
    });
    // Errors also arrive as 'status'; listening keeps them from being thrown as unhandled.
    call.on("error", () => {});
    this.status = new Promise((resolve) => call.on("status", resolve));
  }

  async next(timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (this.buffered.length === 0) {
      if (Date.now() > deadline) throw new Error(`no message within ${timeoutMs} ms`);
      await Promise.race([new Promise<void>((r) => (this.waiter = r)), sleep(50)]);
    }
    return this.buffered.shift() as T;
  }

  /** Fails if a message arrives within `ms`. */
  async expectSilence(ms: number): Promise<void> {
    await sleep(ms);
    assert.deepEqual(this.buffered, [], "unexpected message");
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const statusOf = (r: HealthCheckResponse): Status => r.status;

let backendUp = true;
let monitor: HealthMonitor;
let server: EcosystemServer;
let client: grpc.Client;

before(async () => {
  // A long interval: the test polls by hand so every flip is observed deterministically.
  monitor = new HealthMonitor({ intervalMs: 60_000 });
  monitor.register(SEARCH, async () => backendUp);
  await monitor.start();
  server = await startEcosystemServer(monitor);
  client = createGrpcJsClient(Health, server.address);
});

after(async () => {
  client.close();
  await server.close();
});

test("Check reports the overall status and a registered service's status", async () => {
  assert.equal(statusOf(await callUnary(client, Health.method.check, { service: "" })), Status.SERVING);
  assert.equal(statusOf(await callUnary(client, Health.method.check, { service: SEARCH })), Status.SERVING);
  backendUp = false;
  await monitor.poll();
  try {
    assert.equal(statusOf(await callUnary(client, Health.method.check, { service: SEARCH })), Status.NOT_SERVING);
    assert.equal(statusOf(await callUnary(client, Health.method.check, {})), Status.NOT_SERVING);
  } finally {
    backendUp = true;
    await monitor.poll();
  }
});

test("Check of an unknown service fails with NOT_FOUND", async () => {
  await assert.rejects(
    callUnary(client, Health.method.check, { service: "no.such.Service" }),
    (err: grpc.ServiceError) => {
      assert.equal(err.code, grpc.status.NOT_FOUND);
      assert.match(err.details, /no\.such\.Service/);
      return true;
    },
  );
});

test("List returns every status, the overall one under the empty name", async () => {
  const res = await callUnary(client, Health.method.list, {});
  assert.deepEqual(Object.fromEntries(Object.entries(res.statuses).map(([name, s]) => [name, s.status])), {
    "": Status.SERVING,
    [SEARCH]: Status.SERVING,
  });
});

test("Watch sends the current status, then each change, and ends its server side on cancel", async () => {
  const baseline = monitor.subscriberCount;
  const service = new StreamReader(callServerStream(client, Health.method.watch, { service: SEARCH }));
  const overall = new StreamReader(callServerStream(client, Health.method.watch, { service: "" }));
  assert.equal(statusOf(await service.next()), Status.SERVING);
  assert.equal(statusOf(await overall.next()), Status.SERVING);

  backendUp = false;
  await monitor.poll();
  assert.equal(statusOf(await service.next()), Status.NOT_SERVING);
  assert.equal(statusOf(await overall.next()), Status.NOT_SERVING);

  await monitor.poll(); // no change: no message
  await service.expectSilence(200);

  backendUp = true;
  await monitor.poll();
  assert.equal(statusOf(await service.next()), Status.SERVING);
  assert.equal(statusOf(await overall.next()), Status.SERVING);

  await until(() => monitor.subscriberCount === baseline + 2, "both watches to subscribe");
  service.call.cancel();
  overall.call.cancel();
  assert.equal((await service.status).code, grpc.status.CANCELLED);
  // The handler honours ctx.signal: its subscription is released once the client cancels.
  await until(() => monitor.subscriberCount === baseline, "the server to release cancelled watches");
});

test("Watch of an unknown service says SERVICE_UNKNOWN, stays open, and reports it once registered", async () => {
  const name = "threadsight.v1.LateService";
  const watch = new StreamReader(callServerStream(client, Health.method.watch, { service: name }));
  assert.equal(statusOf(await watch.next()), Status.SERVICE_UNKNOWN);
  await watch.expectSilence(100);
  let lateUp = false;
  monitor.register(name, async () => lateUp);
  assert.equal(statusOf(await watch.next()), Status.NOT_SERVING);
  lateUp = true;
  await monitor.poll();
  assert.equal(statusOf(await watch.next()), Status.SERVING);
  watch.call.cancel();
  await watch.status;
});

// Last: it stops the shared monitor.
test("on shutdown, Watch streams see NOT_SERVING and then end with OK", async () => {
  const watch = new StreamReader(callServerStream(client, Health.method.watch, { service: "" }));
  assert.equal(statusOf(await watch.next()), Status.SERVING);
  monitor.shutdown();
  assert.equal(statusOf(await watch.next()), Status.NOT_SERVING);
  assert.equal((await watch.status).code, grpc.status.OK);
  assert.equal(statusOf(await callUnary(client, Health.method.check, {})), Status.NOT_SERVING);
});
