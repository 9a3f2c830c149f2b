/**
 * The TrendService handler through a real Connect router: request fields reach the core,
 * the response carries ids, labels, the echoed window, timestamps and processing time, and a
 * bad request becomes the error table's code.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { TrendService } from "../../gen/threadsight/v1/trends_pb.js";
import { trendService } from "../../src/api/trends.js";
import { TrendsCore } from "../../src/core/trends.js";
import { reasonOf, toConnectError } from "../../src/errors/to-connect.js";
import { buildTopicModel } from "../../src/topics/build.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import { THEMES, trendCorpus } from "./fixture.js";
import { TrendOracle } from "./trend-oracle.js";

const { posts } = trendCorpus(true);
const built = buildTopicModel(posts, { k: 3, seed: 42 }).model;
// The fixture tags posts with theme names; give the model those ids so labels resolve.
const themeOfTopic = (keywords: string[]) =>
  (Object.keys(THEMES) as (keyof typeof THEMES)[]).find(
    (theme) => keywords.filter((k) => (THEMES[theme] as readonly string[]).includes(k)).length >= 3,
  )!;
const labelled: TopicModel = { ...built, topics: built.topics.map((t) => ({ ...t, id: themeOfTopic(t.keywords) })) };

function client(withModel = true) {
  const core = new TrendsCore({
    store: new TrendOracle(posts),
    topics: async () => (withModel ? labelled : undefined),
  });
  const impl = trendService(core);
  const transport = createRouterTransport((router) =>
    router.service(TrendService, {
      async listTrends(req, ctx) {
        try {
          return await impl.listTrends(req, ctx);
        } catch (err) {
          throw toConnectError(err);
        }
      },
    }),
  );
  return createClient(TrendService, transport);
}

describe("TrendService.listTrends", () => {
  it("maps the core outcome onto the response", async () => {
    const res = await client().listTrends({ startDate: "2024-03-01", endDate: "2024-03-31", limit: 2 });
    assert.equal(res.total, 2);
    assert.equal(res.trends.length, 2);
    assert.deepEqual(res.dateRange && [res.dateRange.start, res.dateRange.end], ["2024-03-01", "2024-03-31"]);
    assert.ok(res.processingTimeMs >= 0);
    const [top] = res.trends;
    assert.equal(top!.id, "seo");
    assert.equal(top!.topic, labelled.topics.find((t) => t.id === "seo")!.label);
    assert.ok(top!.postCount > 0 && top!.totalUpvotes > 0);
    assert.ok(top!.trendScore > 0 && top!.trendScore < 100);
    assert.ok(top!.samplePosts.length >= 3);
    const created = timestampMs(top!.samplePosts[0]!.created!);
    assert.ok(created >= Date.UTC(2024, 2, 1) && created < Date.UTC(2024, 3, 1));
    assert.ok(top!.trendingKeywords.length > 0);
    assert.ok(top!.topSubforums[0]!.startsWith("seo-"));
  });

  it("answers an empty window with no trends and total 0", async () => {
    const res = await client().listTrends({ startDate: "2020-01-01", endDate: "2020-01-01" });
    assert.equal(res.total, 0);
    assert.deepEqual(res.trends, []);
  });

  it("answers failed_precondition naming the rebuild command while no topic model exists", async () => {
    await assert.rejects(
      client(false).listTrends({ startDate: "2024-03-01", endDate: "2024-03-31" }),
      (err: unknown) => {
        return (
          err instanceof ConnectError &&
          err.code === Code.FailedPrecondition &&
          reasonOf(err) === "TOPICS_NOT_BUILT" &&
          /threadsight topics rebuild/.test(err.rawMessage)
        );
      },
    );
    // The request's own rules come first: a bad window is reported as such, model or not.
    await assert.rejects(
      client(false).listTrends({ startDate: "2024-03-02", endDate: "2024-03-01" }),
      (err: unknown) => err instanceof ConnectError && err.code === Code.InvalidArgument,
    );
  });

  it("rejects an inverted window with invalid_argument", async () => {
    await assert.rejects(client().listTrends({ startDate: "2024-03-02", endDate: "2024-03-01" }), (err: unknown) => {
      return (
        err instanceof ConnectError &&
        err.code === Code.InvalidArgument &&
        /start_date must not be after end_date/.test(err.rawMessage)
      );
    });
  });
});
