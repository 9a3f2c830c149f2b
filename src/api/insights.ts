/**
 * InsightsService handlers: map the request to core parameters, call AggregateCore, map the
 * outcome back (bucket starts as UTC days, sums saturated to int32). Rules live in core/.
 */
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { InsightsService } from "../../gen/threadsight/v1/insights_pb.js";
import {
  AggregatePostsResponseSchema,
  FieldCountsSchema,
  HistogramBucketSchema,
  ValueCountSchema,
} from "../../gen/threadsight/v1/insights_pb.js";
import type { AggregateCore } from "../core/aggregate.js";
import { formatDay } from "../core/request-rules.js";

const INT32_MAX = 2_147_483_647;

/** Sums can exceed int32 on a huge corpus; they saturate rather than wrap. */
function int32(n: number): number {
  return Math.max(-INT32_MAX - 1, Math.min(INT32_MAX, Math.round(n)));
}

/** Creates the InsightsService implementation over the aggregate core. */
export function insightsService(core: AggregateCore): ServiceImpl<typeof InsightsService> {
  return {
    async aggregatePosts(req, ctx) {
      const started = performance.now();
      const out = await core.aggregate(
        { query: req.query, filter: req.filter, groupBy: req.groupBy, topN: req.topN, interval: req.interval },
        ctx.signal,
      );
      return create(AggregatePostsResponseSchema, {
        query: req.query,
        total: int32(out.total),
        groups: out.groups.map((g, i) =>
          create(FieldCountsSchema, {
            field: out.groupNames[i]!,
            values: g.values.map((v) => create(ValueCountSchema, { value: v.value, count: int32(v.count) })),
            otherCount: int32(g.other),
          }),
        ),
        interval: req.interval,
        histogram: out.buckets.map((b) =>
          create(HistogramBucketSchema, {
            start: formatDay(b.start),
            postCount: int32(b.count),
            totalUpvotes: int32(b.upvotes),
            totalComments: int32(b.comments),
            meanSentiment: b.count === 0 ? 0 : b.sentimentSum / b.count,
          }),
        ),
        minSimilarity: out.minSimilarity ?? 0,
        processingTimeMs: Math.round(performance.now() - started),
      });
    },
  };
}
