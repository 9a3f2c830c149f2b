/**
 * TrendService handlers: map the request to core parameters, call TrendsCore, map the outcome
 * back. `id` is the stable topic id and `topic` its readable label; ranking lives in core/.
 */
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { TrendService } from "../../gen/threadsight/v1/trends_pb.js";
import {
  DateRangeSchema,
  ListTrendsResponseSchema,
  SamplePostSchema,
  TrendSchema,
} from "../../gen/threadsight/v1/trends_pb.js";
import type { TrendsCore } from "../core/trends.js";
import { timestamp } from "./timestamps.js";

const INT32_MAX = 2_147_483_647;

/** Sums can exceed int32 on a huge corpus; they saturate rather than wrap. */
function int32(n: number): number {
  return Math.max(-INT32_MAX - 1, Math.min(INT32_MAX, Math.round(n)));
}

/** Creates the TrendService implementation over the trends core. */
export function trendService(core: TrendsCore): ServiceImpl<typeof TrendService> {
  return {
    async listTrends(req, ctx) {
      const started = performance.now();
      const out = await core.list({ startDate: req.startDate, endDate: req.endDate, limit: req.limit }, ctx.signal);
      const trends = out.trends.map((t) =>
        create(TrendSchema, {
          id: t.topicId,
          topic: t.label,
          postCount: int32(t.postCount),
          totalUpvotes: int32(t.totalUpvotes),
          totalComments: int32(t.totalComments),
          avgSentiment: t.avgSentiment,
          topSubforums: t.topSubforums,
          trendingKeywords: t.trendingKeywords,
          samplePosts: t.samplePosts.map((p) =>
            create(SamplePostSchema, {
              id: p.id,
              title: p.title,
              subforum: p.subforum,
              upvotes: int32(p.upvotes),
              comments: int32(p.comments),
              created: timestamp(p.created),
            }),
          ),
          trendScore: t.trendScore,
          growthRate: t.growthRate,
        }),
      );
      return create(ListTrendsResponseSchema, {
        trends,
        total: trends.length,
        dateRange: create(DateRangeSchema, { start: out.range.startDay, end: out.range.endDay }),
        processingTimeMs: Math.round(performance.now() - started),
      });
    },
  };
}
