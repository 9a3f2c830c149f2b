/**
 * The service on its scale-out backend: a real Weaviate server, posts loaded by the real ingest
 * CLI, searched over REST and gRPC; and when Weaviate goes away, calls fail fast with 503
 * BACKEND_UNAVAILABLE and readiness turns false.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import type { WeaviateServer } from "../harness/weaviate.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { rest } from "./rest-client.js";

const skip = weaviateSkipReason() ?? corporaSkip();

describe("service on Weaviate", { skip }, () => {
  let weaviate: WeaviateServer;
  let svc: RunningService;
  let key: string;
  const collection = `Svc${Date.now()}`;
  before(async () => {
    weaviate = await startWeaviate();
    const env = {
      WEAVIATE_URL: weaviate.httpUrl,
      WEAVIATE_GRPC_URL: weaviate.grpcUrl,
      WEAVIATE_COLLECTION: collection,
    };
    await seedSample({ ...env, THREADSIGHT_DATA_DIR: "/tmp/threadsight-unused" }, [
      { file: "reddit_top2013/raw_csv/startups.csv", limit: 80 },
      { file: "hackernews_2015_2016/hacker_news.csv", limit: 80 },
    ]);
    svc = await startService({ env });
    key = await svc.createKey("enterprise");
  });
  after(async () => {
    await svc?.stop();
    await weaviate?.stop();
  });

  test("semantic and vector search answer from Weaviate", async () => {
    const sem = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "raising a seed round", limit: 5 },
    });
    assert.equal(sem.status, 200, JSON.stringify(sem.body));
    assert.ok(sem.body.data.results.length > 0);
    for (const r of sem.body.data.results) assert.ok(r.relevance >= 0 && r.relevance <= 1);
    const vec = await rest(svc.url, "/api/v1/search/vector", {
      key,
      body: { query: "raising a seed round", limit: 5, start_date: "2015-09-01", end_date: "2016-09-30" },
    });
    assert.equal(vec.status, 200);
    for (const r of vec.body.data.results) assert.ok(r.created >= "2015-09-01" && r.created < "2016-10-01");
    const ready = await fetch(`${svc.url}/readyz`);
    assert.equal(ready.status, 200);
  });

  test("ExportPosts streams every post oldest first, and GetPosts finds them, from Weaviate", async () => {
    const res = await fetch(`${svc.url}/api/v1/posts:export`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ filter: { sources: ["reddit", "hackernews"] } }),
    });
    assert.equal(res.status, 200);
    const lines = (await res.text())
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, any>);
    const posts = lines.slice(0, -1);
    assert.deepEqual(lines.at(-1), { end: { exported: posts.length } });
    assert.equal(posts.length, await svc.service.index.count());
    const key2 = (p: Record<string, any>) => [Date.parse(p.created), p.id] as const;
    for (let i = 1; i < posts.length; i++) {
      const [a, b] = [key2(posts[i - 1]!), key2(posts[i]!)];
      assert.ok(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]), `${posts[i - 1]!.id} before ${posts[i]!.id}`);
    }
    const ids = posts.slice(0, 3).map((p) => p.id as string);
    const got = await fetch(`${svc.url}/api/v1/posts:batchGet`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ ids: [...ids, "reddit:missing"] }),
    });
    const data = ((await got.json()) as { data: { posts: Record<string, any>[]; not_found: string[] } }).data;
    assert.deepEqual(data.posts, posts.slice(0, 3));
    assert.deepEqual(data.not_found, ["reddit:missing"]);
  });

  test("Weaviate gone: 503 BACKEND_UNAVAILABLE quickly, readiness false", async () => {
    await weaviate.stop();
    const started = Date.now();
    const res = await rest(svc.url, "/api/v1/search/semantic", {
      key,
      body: { query: "a query that is not cached", limit: 5 },
    });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error.reason, "BACKEND_UNAVAILABLE");
    assert.doesNotMatch(res.body.error.message, /ECONNREFUSED|127\.0\.0\.1|grpc/i);
    assert.ok(Date.now() - started < 5000, "fails fast, well before the deadline");
    await svc.service.health.poll();
    const ready = await fetch(`${svc.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { checks: Record<string, boolean> }).checks["threadsight.index"], false);
  });
});
