/**
 * A fresh data directory gets its topic model from `threadsight ingest` alone: below the minimum
 * the ingest says so and ListTrends answers FAILED_PRECONDITION over gRPC (grpc-js) and 409 over
 * REST naming `threadsight topics rebuild`; once enough posts are in, the ingest builds the model
 * and ListTrends answers with trends; later ingests keep the model below the growth share and
 * refresh it past it. Real ingest child processes over a sample of the Hacker News corpus.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { TrendService } from "../../gen/threadsight/v1/trends_pb.js";
import { AUTO_BUILD_MIN_POSTS } from "../../src/topics/auto-build.js";
import { loadTopicModel, topicModelPath } from "../../src/topics/model-file.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { CORPORA, corporaSkip, runIngest } from "../harness/seed.js";
import { startService } from "../harness/service.js";
import { rest } from "./rest-client.js";

const HN = path.join(CORPORA, "hackernews_2015_2016/hacker_news.csv");
const WINDOW = { startDate: "2015-09-01", endDate: "2016-09-30" };

function reasonOf(err: grpc.ServiceError): string {
  const raw = err.metadata.get("grpc-status-details-bin")[0];
  if (raw === undefined) return "";
  const status = fromBinary(StatusSchema, raw as Buffer);
  const info = status.details.find((d) => d.typeUrl.endsWith("google.rpc.ErrorInfo"));
  return info === undefined ? "" : fromBinary(ErrorInfoSchema, info.value).reason;
}

/** ListTrends over gRPC and REST against a service reading `dataDir`, stopped afterwards. */
async function listTrends(dataDir: string) {
  const svc = await startService({ dataDir });
  try {
    const key = await svc.createKey("pro");
    const client = createGrpcJsClient(TrendService, svc.address);
    try {
      const grpcOut = await callUnaryWithMetadata(client, TrendService.method.listTrends, WINDOW, {
        authorization: `Bearer ${key}`,
      });
      const restOut = await rest(svc.url, "/api/v1/trends", {
        key,
        body: { start_date: WINDOW.startDate, end_date: WINDOW.endDate },
      });
      return { grpcOut, restOut };
    } finally {
      client.close();
    }
  } finally {
    await svc.stop();
  }
}

describe("the topic model is built by ingest, without a manual step", { skip: corporaSkip() }, () => {
  let dataDir: string;
  const env = () => ({ THREADSIGHT_DATA_DIR: dataDir });
  /** Ingests the next `n` posts of the sample (--limit resumes where the previous run stopped). */
  async function ingestMore(n: number) {
    const res = await runIngest([HN, "--limit", String(n)], env());
    assert.equal(res.code, 0, res.stderr.slice(-2000));
    return res.stderr;
  }
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-autotopics-"));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test("below the minimum the ingest says so, and ListTrends answers FAILED_PRECONDITION / 409 naming the command", async () => {
    const stderr = await ingestMore(AUTO_BUILD_MIN_POSTS - 80);
    assert.match(
      stderr,
      new RegExp(`holds ${AUTO_BUILD_MIN_POSTS - 80} posts, fewer than the ${AUTO_BUILD_MIN_POSTS}`),
    );
    assert.equal(await loadTopicModel(topicModelPath(dataDir)), undefined);
    const { grpcOut, restOut } = await listTrends(dataDir);
    assert.equal(grpcOut.error?.code, grpc.status.FAILED_PRECONDITION, JSON.stringify(grpcOut.response));
    assert.equal(reasonOf(grpcOut.error!), "TOPICS_NOT_BUILT");
    assert.match(grpcOut.error!.details, /`threadsight topics rebuild`/);
    assert.equal(restOut.status, 409, JSON.stringify(restOut.body));
    assert.equal(restOut.body.success, false);
    assert.equal(restOut.body.error.code, "failed_precondition");
    assert.equal(restOut.body.error.reason, "TOPICS_NOT_BUILT");
    assert.match(restOut.body.error.message, /`threadsight topics rebuild`/);
  });

  test("an ingest that ends with enough posts builds the model, and ListTrends answers with trends", async () => {
    const posts = AUTO_BUILD_MIN_POSTS + 20;
    const stderr = await ingestMore(100);
    assert.match(stderr, new RegExp(`built a topic model of \\d+ topics from ${posts} posts`));
    const model = (await loadTopicModel(topicModelPath(dataDir)))!;
    assert.equal(model.builtFromPosts, posts);
    const { grpcOut, restOut } = await listTrends(dataDir);
    assert.equal(grpcOut.error, undefined, grpcOut.error?.details);
    assert.ok(grpcOut.response!.trends.length > 0, "trends over the ingested posts");
    assert.equal(restOut.status, 200, JSON.stringify(restOut.body));
    assert.ok(restOut.body.data.trends.length > 0);
    const ids = new Set(model.topics.map((t) => t.id));
    for (const t of restOut.body.data.trends as { id: string }[]) assert.ok(ids.has(t.id), t.id);
  });

  test("growth below the share keeps the model; past it the ingest refreshes it", async () => {
    const built = AUTO_BUILD_MIN_POSTS + 20;
    const below = await ingestMore(100);
    assert.match(
      below,
      new RegExp(
        `topic model kept: built from ${built} posts, refreshed once the index reaches ${Math.ceil(built * 1.5)}`,
      ),
    );
    assert.equal((await loadTopicModel(topicModelPath(dataDir)))!.version, 1);
    const past = await ingestMore(Math.ceil(built * 1.5) - built - 100);
    assert.match(
      past,
      new RegExp(
        `refreshed the topic model \\(\\d+ topics\\) from ${Math.ceil(built * 1.5)} posts: the index grew from ${built}`,
      ),
    );
    const model = (await loadTopicModel(topicModelPath(dataDir)))!;
    assert.equal(model.version, 2);
    assert.equal(model.builtFromPosts, Math.ceil(built * 1.5));
  });
});
