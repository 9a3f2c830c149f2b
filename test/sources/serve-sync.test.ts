/**
 * `serve --sync`: the service started with the sync option polls a stored source on its own
 * schedule; a story published on the local HN API becomes findable through the service's index
 * by a later poll, and the per-source metrics appear on the server's /metrics. (How soon is a
 * benchmark's question, not a test's.)
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "../../src/config.js";
import type { Service } from "../../src/main.js";
import { createService } from "../../src/main.js";
import { createLogger } from "../../src/observability/logger.js";
import { CONNECTORS } from "../../src/sources/connectors.js";
import { openSqliteSourceStore } from "../../src/sources/store/sqlite-source-store.js";
import { hnCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeHn } from "../fakes/hackernews-server.js";
import { startFakeHn } from "../fakes/hackernews-server.js";
import { corporaSkip } from "../harness/seed.js";

const skip = corporaSkip();

const METRICS_TOKEN = "serve-sync-metrics-token";

describe("serve --sync", { skip, timeout: 300_000 }, () => {
  let hn: FakeHn;
  let dataDir: string;
  let service: Service | undefined;
  before(async () => {
    hn = await startFakeHn(await hnCorpusPosts(20));
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-serve-sync-"));
  });
  after(async () => {
    await service?.close();
    await hn?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("polls stored sources inside the server and reports them on /metrics", async () => {
    const store = openSqliteSourceStore(path.join(dataDir, "sources.sqlite"));
    await store.add({
      name: "hn",
      kind: "hackernews",
      settings: CONNECTORS.hackernews.validate({ firebaseUrl: hn.url, refreshUpdates: false }),
      intervalSeconds: 10,
    });
    await store.close();
    const config = loadConfig({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: "127.0.0.1",
      PORT: "0",
      THREADSIGHT_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      EMBED_WORKERS: "1",
      // /metrics is served only behind a setting: a bearer token here.
      METRICS_TOKEN: METRICS_TOKEN,
    });
    const sink = new Writable({ write: (_c, _e, done) => done() });
    service = await createService(config, createLogger(config.logLevel, sink), { sync: true });
    await service.app.listen({ port: 0, host: "127.0.0.1" });
    // The first poll fixes the starting point; the story published after it is found by the next.
    const deadline = Date.now() + 120_000;
    while (hn.count(/maxitem/) === 0) {
      assert.ok(Date.now() < deadline, "the server never polled");
      await sleep(100);
    }
    await sleep(500);
    const [story] = hn.publish(1);
    const id = `hackernews:${story!.id}`;
    while ((await service.index.get([id])).length === 0) {
      assert.ok(Date.now() < deadline, `${id} never reached the index`);
      await sleep(250);
    }
    const port = (service.app.server.address() as { port: number }).port;
    // The poll that wrote the story is counted once it has finished (its cursor saved).
    let metrics = "";
    while (!/threadsight_source_polls_total\{source="hn",kind="hackernews",result="ok"\} [2-9]/.test(metrics)) {
      assert.ok(Date.now() < deadline, `the second poll never finished: ${metrics.slice(-1500)}`);
      metrics = await (
        await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      await sleep(100);
    }
    assert.match(metrics, /threadsight_source_posts_total\{source="hn",kind="hackernews",outcome="inserted"\} 1/);
    assert.deepEqual(hn.violations, []);
  });
});
