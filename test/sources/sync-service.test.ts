/**
 * Live sync into the real service: a dump is ingested with the file pipeline, the Hacker News
 * source then polls the local HN API through the scheduler into the same index the running
 * service searches, and SemanticSearch over gRPC finds a story published on the fake after one
 * poll. A story first loaded from the dump and then seen live (with a new score) stays one post.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type * as grpc from "@grpc/grpc-js";
import { Registry } from "prom-client";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import type { IngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFile } from "../../src/ingest/pipeline.js";
import { CONNECTORS } from "../../src/sources/connectors.js";
import type { SourceStore } from "../../src/sources/store/source-store.js";
import { openSqliteSourceStore } from "../../src/sources/store/sqlite-source-store.js";
import { runScheduler } from "../../src/sources/sync/scheduler.js";
import { createSyncMetrics } from "../../src/sources/sync/sync-metrics.js";
import { hnCorpusPosts, onstartupsCorpusPosts, redditCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeDiscourse } from "../fakes/discourse-server.js";
import { startFakeDiscourse } from "../fakes/discourse-server.js";
import type { FakeHn } from "../fakes/hackernews-server.js";
import { startFakeHn } from "../fakes/hackernews-server.js";
import type { FakeLemmy } from "../fakes/lemmy-server.js";
import { startFakeLemmy } from "../fakes/lemmy-server.js";
import type { FakeReddit } from "../fakes/reddit-server.js";
import { startFakeReddit } from "../fakes/reddit-server.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { corporaSkip } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

const skip = corporaSkip();

describe("sync from a live source into the running service", { skip, timeout: 600_000 }, () => {
  let svc: RunningService;
  let hn: FakeHn;
  let forum: FakeDiscourse;
  let lemmy: FakeLemmy;
  let reddit: FakeReddit;
  let embedder: Embedder;
  let enricher: IngestEnricher;
  let store: SourceStore;
  let client: grpc.Client;
  let key: string;
  let tmp: string;
  const registry = new Registry();
  const metrics = createSyncMetrics(registry);

  before(async () => {
    svc = await startService();
    key = await svc.createKey("pro");
    client = createGrpcJsClient(SearchService, svc.address);
    embedder = await createEmbedder(svc.config);
    enricher = await createIngestEnricher(svc.dataDir, embedder);
    store = openSqliteSourceStore(path.join(svc.dataDir, "sources.sqlite"));
    hn = await startFakeHn(await hnCorpusPosts(200));
    forum = await startFakeDiscourse(await onstartupsCorpusPosts(20));
    lemmy = await startFakeLemmy("startups", await redditCorpusPosts("Entrepreneur", 20));
    reddit = await startFakeReddit("startups", await redditCorpusPosts("startups", 20), {
      clientId: "e2e-app",
      clientSecret: "e2e-secret",
    });
    tmp = await mkdtemp(path.join(os.tmpdir(), "threadsight-sync-"));
  });
  after(async () => {
    client?.close();
    await store?.close();
    await enricher?.close();
    await embedder?.close();
    await hn?.close();
    await forum?.close();
    await lemmy?.close();
    await reddit?.close();
    await svc?.stop();
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });

  const pollAll = () =>
    runScheduler(
      {
        store,
        connectors: CONNECTORS,
        write: { index: svc.service.index, embedder, enricher },
        owner: "test",
        leaseMs: 60_000,
        politeness: { minIntervalMs: 0 },
        maxItemsPerPoll: 1000,
        metrics,
        log: () => undefined,
      },
      new AbortController().signal,
      { once: true },
    );

  it("a post loaded from a dump and then polled live is one post, updated; a new post is searchable after one poll", async () => {
    // The dump: API items of stories already on the site, as `threadsight ingest` reads them.
    const old = hn.publish(10, Date.now() - 3_600_000);
    const dump = path.join(tmp, "hn-items.jsonl");
    await writeFile(dump, old.map((i) => JSON.stringify(i)).join("\n") + "\n");
    const checkpoints = new CheckpointStore(svc.dataDir, "sync-test");
    const loaded = await ingestFile(
      dump,
      { batchSize: 64 },
      { index: svc.service.index, embedder, enricher, checkpoints, log: () => undefined },
    );
    assert.equal(loaded.stats.inserted, 10);
    const before = await svc.service.index.count();

    // The live source starts 20 items back (the dump's ten stories and their comments).
    await store.add({
      name: "hn",
      kind: "hackernews",
      settings: CONNECTORS.hackernews.validate({
        firebaseUrl: hn.url,
        algoliaUrl: hn.url,
        backlog: 20,
        refreshUpdates: false,
      }),
      intervalSeconds: 10,
    });
    hn.edit(old[0]!.id, { score: 4242 });
    const [first] = await pollAll();
    assert.equal(first?.error, undefined, first?.error?.message);
    assert.equal(first!.inserted, 0, "every dump story seen live again is the same post");
    assert.equal(first!.updated + first!.unchanged, 10);
    assert.equal(await svc.service.index.count(), before);
    const [seen] = await svc.service.index.get([`hackernews:${old[0]!.id}`]);
    assert.equal(seen?.upvotes, 4242, "the live score replaced the dump's");

    // A new story appears on the site; one poll later SemanticSearch finds it.
    await store.setPaused("hn", false); // due now
    const [fresh] = hn.publish(1);
    const [second] = await pollAll();
    assert.equal(second?.error, undefined, second?.error?.message);
    assert.equal(second!.inserted, 1);
    const out = await callUnaryWithMetadata(
      client,
      SearchService.method.semanticSearch,
      { query: fresh!["title"] as string, limit: 5, subforums: ["hackernews"] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(out.error, undefined, out.error?.details);
    assert.ok(
      out.response!.results.some((r) => r.id === `hackernews:${fresh!.id}`),
      `searching its title finds hackernews:${fresh!.id}: ${out.response!.results.map((r) => r.id).join(", ")}`,
    );
    const text = await registry.metrics();
    assert.match(text, /threadsight_source_posts_total\{source="hn",kind="hackernews",outcome="inserted"\} 1/);
    assert.match(text, /threadsight_source_lag_seconds_count\{source="hn",kind="hackernews"\} [1-9]/);
    assert.deepEqual(hn.violations, []);
  });

  it("a source that keeps failing turns unhealthy and is retried later, without stopping the others", async () => {
    await store.add({
      name: "broken",
      kind: "stackexchange",
      settings: CONNECTORS.stackexchange.validate({ site: "startups", apiUrl: "http://127.0.0.1:9" }),
      intervalSeconds: 10,
    });
    for (let i = 0; i < 3; i += 1) {
      await store.setPaused("broken", false);
      await store.setPaused("hn", false);
      const summaries = await pollAll();
      const broken = summaries.find((s) => s.source === "broken");
      const ok = summaries.find((s) => s.source === "hn");
      assert.equal(broken?.error?.kind, "network");
      assert.equal(ok?.error, undefined);
    }
    const record = await store.get("broken");
    assert.equal(record?.consecutiveFailures, 3);
    assert.ok(record!.nextPollAt > Date.now() + 30_000, "backed off well past its 10 s interval");
    assert.match(await registry.metrics(), /threadsight_source_healthy\{source="broken",kind="stackexchange"\} 0/);
  });

  it("a new Discourse topic, Lemmy post and Reddit post are each found by SemanticSearch after one poll", async () => {
    const added = [
      { name: "forum", kind: "discourse" as const, settings: { baseUrl: forum.url, host: "forum.example.org" } },
      { name: "lemmy", kind: "lemmy" as const, settings: { instanceUrl: lemmy.url, community: "startups" } },
      {
        name: "reddit",
        kind: "reddit" as const,
        settings: {
          subreddit: "startups",
          clientId: "e2e-app",
          clientSecret: "e2e-secret",
          tokenUrl: `${reddit.url}/api/v1/access_token`,
          apiUrl: reddit.url,
        },
      },
    ];
    for (const a of added)
      await store.add({ ...a, settings: CONNECTORS[a.kind].validate(a.settings), intervalSeconds: 10 });
    // The first poll fixes where each source starts; what is published after it is new.
    for (const s of await pollAll()) if (s.source !== "broken") assert.equal(s.error, undefined, s.error?.message);
    const [topic] = forum.publish(1);
    const [lp] = lemmy.publish(1);
    const [rp] = reddit.publish(1);
    for (const a of added) await store.setPaused(a.name, false); // due now
    const summaries = await pollAll();
    for (const a of added) {
      const s = summaries.find((x) => x.source === a.name);
      assert.equal(s?.error, undefined, s?.error?.message);
      assert.equal(s!.inserted, 1, `${a.name} wrote its one new post`);
    }
    const expected: [string, string][] = [
      [topic!.title, "discourse:forum.example.org:" + topic!.id],
      [lp!.name, `lemmy:${new URL(lemmy.url).host}:${lp!.id}`],
      [rp!["title"] as string, `reddit:${rp!.id}`],
    ];
    for (const [title, id] of expected) {
      const out = await callUnaryWithMetadata(
        client,
        SearchService.method.semanticSearch,
        { query: title, limit: 10 },
        { authorization: `Bearer ${key}` },
      );
      assert.equal(out.error, undefined, out.error?.details);
      assert.ok(
        out.response!.results.some((r) => r.id === id),
        `searching "${title}" finds ${id}: ${out.response!.results.map((r) => r.id).join(", ")}`,
      );
    }
    assert.deepEqual([...forum.violations, ...lemmy.violations, ...reddit.violations], []);
  });
});
