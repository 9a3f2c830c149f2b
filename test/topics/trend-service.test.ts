/**
 * The TrendService handler through a real Connect router: request fields reach the core,
 * the response carries ids, labels, the echoed window, timestamps and processing time, and a
 * bad request becomes the error table's code.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient, createRouterTransport, ConnectError, Code } from "@connectrpc/connect";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { TrendService } from "../../gen/threadsight/v1/trends_pb.js";
import { trendService } from "../../src/api/trends.js";
import { TrendsCore } from "../../src/core/trends.js";
import { toConnectError } from "../../src/errors/to-connect.js";
import { MemoryTrendStore } from "./memory-trend-store.js";
import { trendCorpus } from "./fixture.js";

function client() {
  const core = new TrendsCore({ store: new MemoryTrendStore(trendCorpus(true).posts), topics: async () => undefined });
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
    assert.equal(top!.topic, "seo");
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

  it("rejects an inverted window with invalid_argument", async () => {
    await assert.rejects(client().listTrends({ startDate: "2024-03-02", endDate: "2024-03-01" }), (err: unknown) => {
      return err instanceof ConnectError && err.code === Code.InvalidArgument && /start_date must not be after end_date/.test(err.rawMessage);
    });
  });
});
