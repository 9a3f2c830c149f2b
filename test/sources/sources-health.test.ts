/**
 * `serve --sync` reports the live sources through grpc.health.v1.Health as
 * "threadsight.v1.Sources": a real @grpc/grpc-js client sees it turn NOT_SERVING once a source
 * polling a forum that keeps failing has failed three polls in a row, while the overall status
 * "" stays SERVING (a failing forum must not take the API out of a load balancer), and SERVING
 * again once the forum recovers.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type * as grpc from "@grpc/grpc-js";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../gen/grpc/health/v1/health_pb.js";
import { loadConfig } from "../../src/config.js";
import type { Service } from "../../src/main.js";
import { createService } from "../../src/main.js";
import { createLogger } from "../../src/observability/logger.js";
import { CONNECTORS } from "../../src/sources/connectors.js";
import type { SourceStore } from "../../src/sources/store/source-store.js";
import { openSqliteSourceStore } from "../../src/sources/store/sqlite-source-store.js";
import { onstartupsCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeDiscourse } from "../fakes/discourse-server.js";
import { startFakeDiscourse } from "../fakes/discourse-server.js";
import { callUnary, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { corporaSkip } from "../harness/seed.js";

const skip = corporaSkip();
const SOURCES = "threadsight.v1.Sources";

describe("live sources in the gRPC health service", { skip, timeout: 300_000 }, () => {
  let forum: FakeDiscourse;
  let dataDir: string;
  let service: Service | undefined;
  let store: SourceStore;
  let client: grpc.Client;
  let port: number;

  before(async () => {
    forum = await startFakeDiscourse(await onstartupsCorpusPosts(10));
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-sources-health-"));
  });
  after(async () => {
    client?.close();
    await store?.close();
    await service?.close();
    await forum?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const status = async (name: string): Promise<Status> =>
    (await callUnary(client, Health.method.check, { service: name })).status;
  const waitFor = async (name: string, want: Status, what: string): Promise<void> => {
    const deadline = Date.now() + 120_000;
    while ((await status(name)) !== want) {
      assert.ok(Date.now() < deadline, what);
      await sleep(200);
    }
  };

  it("turns NOT_SERVING while a source is unhealthy, the overall status staying SERVING", async () => {
    store = openSqliteSourceStore(path.join(dataDir, "sources.sqlite"));
    await store.add({
      name: "forum",
      kind: "discourse",
      settings: CONNECTORS.discourse.validate({ baseUrl: forum.url }),
      intervalSeconds: 10,
    });
    const config = loadConfig({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: "127.0.0.1",
      PORT: "0",
      THREADSIGHT_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      EMBED_WORKERS: "1",
    });
    const sink = new Writable({ write: (_c, _e, done) => done() });
    service = await createService(config, createLogger(config.logLevel, sink), { sync: true });
    await service.app.listen({ port: 0, host: "127.0.0.1" });
    port = (service.app.server.address() as { port: number }).port;
    client = createGrpcJsClient(Health, `127.0.0.1:${port}`);
    await waitFor(SOURCES, Status.SERVING, "the sources never reported SERVING while the forum answered");
    assert.equal(await status(""), Status.SERVING);

    // The forum now answers every request with HTTP 500; each poll is made due at once.
    forum.inject({ path: /./, kind: "500", times: 100_000 });
    const deadline = Date.now() + 120_000;
    while (((await store.get("forum"))?.consecutiveFailures ?? 0) < 3) {
      assert.ok(Date.now() < deadline, "the source never failed three polls");
      const r = await store.get("forum");
      if (r !== undefined && r.leaseUntil < Date.now() && r.nextPollAt > Date.now())
        await store.setPaused("forum", false);
      await sleep(200);
    }
    await waitFor(SOURCES, Status.NOT_SERVING, "an unhealthy source never turned the sources NOT_SERVING");
    assert.equal(await status(""), Status.SERVING, "the overall status is not gated on the sources");
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200, "nor is /readyz");

    forum.clearFaults();
    await store.setPaused("forum", false);
    await waitFor(SOURCES, Status.SERVING, "the sources never recovered after a successful poll");
    assert.equal(await status(""), Status.SERVING);
  });
});
