/**
 * AggregatePosts on Weaviate, through its Aggregate API: the total (and, without a date range,
 * the first and last `created`) from one aggregate, each group field from one `groupBy` with a
 * limit, and each histogram bucket from one aggregate over the bucket's `created` range with the
 * sums as metrics (Weaviate has no date histogram), run a few at a time. With a query vector
 * every call is its `nearVector` form with a distance threshold, so the set is every post above
 * it. No object is fetched.
 */

import type { Collection, FilterValue } from "weaviate-client";
import { Filters } from "weaviate-client";
import type { AggregateQuery, AggregateResult, Bucket, GroupCount, GroupField } from "../aggregate-query.js";
import { bucketStarts, fillBuckets, groupCounts, nextBucket, topValues } from "../aggregate-query.js";
import { weaviateWhere } from "./filter.js";
import { groups } from "./rollups.js";

type Posts = Collection<undefined, string, undefined>;
type Metrics = Record<string, { sum?: number; minimum?: string; maximum?: string } | undefined>;

/** Most groups one groupBy asks for: widened only while ties at the cut leave the top N open. */
const MAX_GROUP_LIMIT = 10_000;
/** Bucket aggregates in flight at once. */
const BUCKET_LANES = 8;

/** Collection property of each group field. */
const PROPERTY: Readonly<Record<GroupField, string>> = {
  subforum: "subforum",
  source: "source",
  sentiment: "sentiment",
  leadType: "leadType",
  author: "author",
};

/**
 * The `distance` bound of a `nearVector` that keeps cosine similarity >= `minSimilarity`
 * (Weaviate's cosine distance is 1 - similarity). AggregatePosts counts with it and ExportPosts
 * selects with it, so the two agree post for post.
 */
export function thresholdDistance(minSimilarity: number): number {
  return 1 - minSimilarity;
}

/** Runs `query` over `posts`; `call` wraps each engine call (errors, abort, liveness). */
export async function aggregateWeaviate(
  posts: Posts,
  query: AggregateQuery,
  call: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<AggregateResult> {
  const base = weaviateWhere(posts.filter, query.filter);
  const near = query.near;
  const vector = near ? Array.from(near.vector) : [];
  const nearOpts = near ? { distance: thresholdDistance(near.minSimilarity) } : {};
  const m = posts.metrics;

  /** One aggregate over `filters` with `metrics`. */
  const overall = (filters: FilterValue | undefined, metrics: unknown[]) => {
    const opts = { ...(filters ? { filters } : {}), ...(metrics.length > 0 ? { returnMetrics: metrics } : {}) };
    return call(async () => {
      const res = near
        ? await posts.aggregate.nearVector(vector, { ...nearOpts, ...opts } as never)
        : await posts.aggregate.overAll(opts as never);
      return { total: res.totalCount, props: res.properties as unknown as Metrics };
    });
  };

  /** Counts of `field`'s values, at most `limit` of them (most frequent first, as Weaviate ranks them). */
  const groupOf = (field: GroupField, limit: number) =>
    call(() =>
      groups(async () => {
        const groupBy = { property: PROPERTY[field], limit };
        const opts = { groupBy, ...(base ? { filters: base } : {}) };
        const res = near
          ? await posts.aggregate.groupBy.nearVector(vector, { ...nearOpts, ...opts } as never)
          : await posts.aggregate.groupBy.overAll(opts as never);
        return res.map((g) => [String(g.groupedBy.value), g.totalCount] as const);
      }),
    );

  /** The top N of `field`, exact: the limit widens while values tied at the cut may be missing. */
  const topOf = async (field: GroupField): Promise<GroupCount[]> => {
    // Room for "" (not counted) and for ties beyond the N-th value.
    let limit = Math.min(MAX_GROUP_LIMIT, query.topN * 2 + 1);
    for (;;) {
      const found = await groupOf(field, limit);
      const top = topValues(new Map(found), query.topN);
      const full = found.length >= limit && limit < MAX_GROUP_LIMIT;
      const cut = found.length > 0 ? Math.min(...found.map(([, c]) => c)) : 0;
      // Every value missing from a full answer has at most `cut` posts; the top N is settled
      // when it is full and its last value has more.
      if (!full || (top.length === query.topN && top[top.length - 1]!.count > cut)) return top;
      limit = Math.min(MAX_GROUP_LIMIT, limit * 4);
    }
  };

  const h = query.histogram;
  const needRange = h !== undefined && (h.from === undefined || h.to === undefined);
  const totalCall = overall(base, needRange ? [m.aggregate("created").date(["minimum", "maximum"])] : []);
  const groupCalls = Promise.all([...new Set(query.groupBy)].map(async (f) => [f, await topOf(f)] as const));
  const { total, props } = await totalCall;
  const tops = await groupCalls;
  let buckets: Bucket[] = [];
  if (h && total > 0) {
    const from = h.from ?? Date.parse(props.created?.minimum ?? "");
    const to = h.to ?? Date.parse(props.created?.maximum ?? "");
    const starts = bucketStarts(from, to, h.interval, h.maxBuckets);
    const sums = [
      m.aggregate("upvotes").integer(["sum"]),
      m.aggregate("comments").integer(["sum"]),
      m.aggregate("sentimentScore").number(["sum"]),
    ];
    const found = new Map<number, Bucket>();
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < starts.length) {
        const start = starts[next++]!;
        const created = posts.filter.byProperty("created");
        const range = [
          created.greaterOrEqual(new Date(start)),
          created.lessThan(new Date(nextBucket(start, h.interval))),
        ];
        const r = await overall(Filters.and(...(base ? [base, ...range] : range)), sums);
        found.set(start, {
          start,
          count: r.total,
          upvotes: Number(r.props.upvotes?.sum ?? 0),
          comments: Number(r.props.comments?.sum ?? 0),
          sentimentSum: r.total === 0 ? 0 : Number(r.props.sentimentScore?.sum ?? 0),
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(BUCKET_LANES, starts.length) }, lane));
    buckets = fillBuckets(found, { ...h, from, to });
  } else if (h && h.from !== undefined && h.to !== undefined) {
    buckets = fillBuckets(new Map(), h);
  }
  return { total, groups: tops.map(([f, top]) => groupCounts(f, top, total)), buckets };
}
