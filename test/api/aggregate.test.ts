/**
 * AggregatePosts against the real service over a sample of real posts (LanceDB): REST, gRPC
 * (@grpc/grpc-js) and `buf curl` give the same answer; counts add up to the total; a filtered
 * total equals the unfiltered count of that value; with a query the set is exactly the posts a
 * vector search scores at or above the threshold; each bad value is a 400 / INVALID_ARGUMENT
 * naming the field.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { InsightsService } from "../../gen/threadsight/v1/insights_pb.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { bufCurl } from "../harness/buf-curl.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { rest } from "./rest-client.js";

const PATH = "/api/v1/aggregate";

/** snake_case JSON keys -> the camelCase of protobuf-es messages. */
function camel(v: unknown): unknown {
  if (Array.isArray(v) || v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), camel(x)]),
  );
}

const BAD: { body: Record<string, unknown>; field: string; message: RegExp }[] = [
  { body: { group_by: ["subreddit"] }, field: "group_by[0]", message: /must be one of "subforum", "source"/ },
  { body: { group_by: ["source", "source"] }, field: "group_by[1]", message: /repeats "source"/ },
  { body: { top_n: 0 }, field: "top_n", message: /between 1 and 100, got 0/ },
  { body: { top_n: 101 }, field: "top_n", message: /between 1 and 100, got 101/ },
  { body: { interval: "hour" }, field: "interval", message: /must be one of "day", "week", "month", got "hour"/ },
  {
    body: { interval: "day", filter: { start_date: "2013-01-01", end_date: "2016-12-31" } },
    field: "interval",
    message: /1461 buckets here, more than 1000/,
  },
  {
    body: { filter: { start_date: "2016-02-01", end_date: "2016-01-01" } },
    field: "filter.start_date",
    message: /must not be after filter.end_date/,
  },
  {
    body: { filter: { subforums: Array.from({ length: 21 }, (_, i) => `s${i}`) } },
    field: "filter.subforums",
    message: /at most 20 values, got 21/,
  },
  { body: { query: "x".repeat(501) }, field: "query", message: /at most 500 characters/ },
];

describe("AggregatePosts over REST, gRPC and buf curl", { skip: corporaSkip() }, () => {
  let svc: RunningService;
  let key: string;
  let client: grpc.Client;
  before(async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-aggregate-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, [
      { file: "reddit_top2013/raw_csv/startups.csv", limit: 60 },
      { file: "hackernews_2015_2016/hacker_news.csv", limit: 60 },
    ]);
    svc = await startService({ dataDir });
    key = await svc.createKey("enterprise");
    client = createGrpcJsClient(InsightsService, svc.address);
  });
  after(async () => {
    client?.close();
    await svc?.stop();
  });

  const call = async (body: Record<string, unknown>) => {
    const res = await rest(svc.url, PATH, { key, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };

  test("counts and buckets add up to the total, which is every post; a filter's total equals that value's count", async () => {
    const all = await call({
      group_by: ["subforum", "source", "sentiment", "lead_type", "author"],
      top_n: 100,
      interval: "month",
    });
    assert.equal(all.total, await svc.service.index.count());
    assert.equal(all.min_similarity, 0);
    for (const g of all.groups) {
      assert.equal(
        g.values.reduce((s: number, v: { count: number }) => s + v.count, 0) + g.other_count,
        all.total,
        g.field,
      );
    }
    assert.equal(
      all.histogram.reduce((s: number, b: { post_count: number }) => s + b.post_count, 0),
      all.total,
    );
    // Contiguous months from the first post's to the last one's (the sample spans 2013 to 2016).
    for (let i = 1; i < all.histogram.length; i++) {
      const [y, m] = all.histogram[i - 1].start.split("-").map(Number);
      assert.equal(all.histogram[i].start, new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10));
    }
    assert.ok(
      all.histogram.some((b: { post_count: number }) => b.post_count === 0),
      "empty months between the sources",
    );
    const sources = all.groups.find((g: { field: string }) => g.field === "source");
    const hn = sources.values.find((v: { value: string }) => v.value === "hackernews");
    const only = await call({ filter: { sources: ["hackernews"] }, interval: "week" });
    assert.equal(only.total, hn.count);
    for (const b of only.histogram)
      assert.equal(new Date(`${b.start}T00:00:00Z`).getUTCDay(), 1, "weeks start on Monday");
  });

  test("with a query the set is exactly the posts a vector search scores at or above min_similarity", async () => {
    const query = "raising money from investors";
    const agg = await call({ query, group_by: ["source"] });
    assert.ok(agg.min_similarity > 0 && agg.min_similarity < 1);
    const vec = await rest(svc.url, "/api/v1/search/vector", { key, body: { query, limit: 100 } });
    const above = vec.body.data.results.filter(
      (r: { similarity_score: number }) => r.similarity_score >= agg.min_similarity,
    );
    assert.ok(above.length < 100, "the whole set fits in one page");
    assert.equal(agg.total, above.length);
    assert.ok(agg.total > 0 && agg.total < (await svc.service.index.count()));
  });

  test("gRPC and buf curl answer what REST answers", async () => {
    const body = {
      query: "hiring",
      filter: { min_comments: 1 },
      group_by: ["subforum", "sentiment"],
      top_n: 3,
      interval: "month",
    };
    const viaRest = await call(body);
    const out = await callUnaryWithMetadata(client, InsightsService.method.aggregatePosts, camel(body) as never, {
      authorization: `Bearer ${key}`,
    });
    assert.equal(out.error, undefined, out.error?.details);
    const msg = out.response!;
    assert.equal(msg.total, viaRest.total);
    assert.deepEqual(
      msg.groups.map((g) => ({
        field: g.field,
        values: g.values.map((v) => ({ value: v.value, count: v.count })),
        other_count: g.otherCount,
      })),
      viaRest.groups,
    );
    assert.deepEqual(
      msg.histogram.map((b) => [b.start, b.postCount, b.totalUpvotes, b.totalComments]),
      viaRest.histogram.map((b: Record<string, number>) => [b.start, b.post_count, b.total_upvotes, b.total_comments]),
    );
    const res = await bufCurl([
      "--http2-prior-knowledge",
      "-H",
      `Authorization: Bearer ${key}`,
      "-d",
      JSON.stringify(body),
      `${svc.url}/threadsight.v1.InsightsService/AggregatePosts`,
    ]);
    assert.equal(res.code, 0, res.stderr);
    const viaBuf = JSON.parse(res.stdout);
    assert.equal(viaBuf.total, viaRest.total);
    assert.equal(viaBuf.histogram.length, viaRest.histogram.length);
  });

  test("each bad value is 400 over REST and INVALID_ARGUMENT over gRPC, naming the field", async () => {
    for (const c of BAD) {
      const res = await rest(svc.url, PATH, { key, body: c.body });
      assert.equal(res.status, 400, `${c.field}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "invalid_argument");
      assert.match(res.body.error.message, c.message);
      assert.ok(String(res.body.error.message).includes(c.field.replace(/\[\d+\]$/, "")), res.body.error.message);
      const out = await callUnaryWithMetadata(client, InsightsService.method.aggregatePosts, camel(c.body) as never, {
        authorization: `Bearer ${key}`,
      });
      assert.equal(out.error?.code, grpc.status.INVALID_ARGUMENT, c.field);
      assert.match(out.error!.details, c.message);
    }
    const unknown = await rest(svc.url, PATH, { key, body: { group_by: ["source"], intervals: "week" } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.reason, "UNKNOWN_FIELD");
  });
});
