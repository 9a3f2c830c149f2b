/**
 * AggregatePosts on Weaviate, through its Aggregate API: the total (and, without a date range,
 * the first and last `created`) from one aggregate, each group field from one `groupBy` with a
 * limit, and each histogram bucket from one aggregate over the bucket's `created` range with the
 * sums as metrics (Weaviate has no date histogram), run a few at a time. With a query vector
 * every call is its `nearVector` form with a distance threshold, restricted to created ranges that
 * each hold fewer posts than the flat-search cutoff (flat-windows.ts), so Weaviate compares every
 * post with the query and the set is exactly every post above the threshold; the ranges' answers
 * are added up. No object is fetched.
 */

import type { Collection, FilterValue } from "weaviate-client";
import { Filters } from "weaviate-client";
import type { AggregateQuery, AggregateResult, Bucket, GroupCount, GroupField } from "../aggregate-query.js";
import { bucketStarts, fillBuckets, groupCounts, nextBucket, topValues } from "../aggregate-query.js";
import { weaviateWhere } from "./filter.js";
import type { CountedRange, CreatedRange } from "./flat-windows.js";
import { flatWindows, inLanes, piecesOf } from "./flat-windows.js";
import { groups } from "./rollups.js";

type Posts = Collection<undefined, string, undefined>;
type Metrics = Record<string, { sum?: number; minimum?: string; maximum?: string } | undefined>;

/** Most groups one groupBy asks for: widened only while ties at the cut leave the top N open. */
const MAX_GROUP_LIMIT = 10_000;
/** Range or bucket aggregates in flight at once. */
const LANES = 8;

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

/** What one aggregate call answers. */
interface Answer {
  total: number;
  props: Metrics;
}

/**
 * Runs `query` over `posts`; `call` wraps each engine call (errors, abort, liveness);
 * `flatSearchCutoff` is the collection's (a query vector is searched within ranges below it).
 */
export async function aggregateWeaviate(
  posts: Posts,
  query: AggregateQuery,
  call: <T>(work: () => Promise<T>) => Promise<T>,
  flatSearchCutoff: number,
): Promise<AggregateResult> {
  const base = weaviateWhere(posts.filter, query.filter);
  const near = query.near;
  const vector = near ? Array.from(near.vector) : [];
  const distance = near ? thresholdDistance(near.minSimilarity) : 0;
  /**
   * The vector part of a call over `scope`. Its object limit (the scope's post count) makes it one
   * flat search over the whole allow list, cut at the distance: without one Weaviate pages through
   * the search by offset, and where distances tie a post is counted twice and another not at all,
   * which group counts (sets of posts) show as too few.
   */
  const nearIn = (scope: CountedRange | undefined) => ({ distance, ...(scope ? { objectLimit: scope.count } : {}) });
  const m = posts.metrics;
  const createdRange = [m.aggregate("created").date(["minimum", "maximum"])];

  /** The base filter, within `range` when given. */
  const within = (range: CreatedRange | undefined): FilterValue | undefined => {
    if (!range) return base;
    const created = posts.filter.byProperty("created");
    const bounds = [created.greaterOrEqual(new Date(range.from)), created.lessThan(new Date(range.to))];
    return Filters.and(...(base ? [base, ...bounds] : bounds));
  };

  /**
   * One aggregate over `range` (the whole filter when absent) with `metrics`; with a query and
   * `similar`, only the posts near it (then `range` is a counted flat-search range or a part of one).
   */
  const aggregateOver = (
    range: CountedRange | CreatedRange | undefined,
    metrics: unknown[],
    similar: boolean,
  ): Promise<Answer> => {
    const filters = within(range);
    const opts = { ...(filters ? { filters } : {}), ...(metrics.length > 0 ? { returnMetrics: metrics } : {}) };
    return call(async () => {
      const res =
        near && similar
          ? await posts.aggregate.nearVector(vector, { ...nearIn(range as CountedRange), ...opts } as never)
          : await posts.aggregate.overAll(opts as never);
      return { total: res.totalCount, props: res.properties as unknown as Metrics };
    });
  };

  /** The flat-search ranges of the filtered posts, from their count and first and last `created`. */
  const flatRanges = async (): Promise<CountedRange[]> => {
    const all = await aggregateOver(undefined, createdRange, false);
    const first = Date.parse(all.props.created?.minimum ?? "");
    const last = Date.parse(all.props.created?.maximum ?? "");
    if (all.total === 0 || Number.isNaN(first) || Number.isNaN(last)) return [];
    // Whole seconds around the stored extremes, so a rounded minimum or maximum stays inside.
    const span = { from: Math.floor(first / 1000) * 1000, to: Math.floor(last / 1000) * 1000 + 1000 };
    const count = async (r: CreatedRange) => (await aggregateOver(r, [], false)).total;
    return flatWindows(span, flatSearchCutoff, count, all.total);
  };
  // Without a query the whole filter is one scope; with one, each flat-search range is.
  const windows = near ? await flatRanges() : undefined;
  const scopes: (CountedRange | undefined)[] = windows ?? [undefined];

  /** Counts of `field`'s values in `scope`, at most `limit` of them (most frequent first, as Weaviate ranks them). */
  const groupOf = (field: GroupField, limit: number, scope: CountedRange | undefined) =>
    call(() =>
      groups(async () => {
        const filters = within(scope);
        const opts = { groupBy: { property: PROPERTY[field], limit }, ...(filters ? { filters } : {}) };
        const res = near
          ? await posts.aggregate.groupBy.nearVector(vector, { ...nearIn(scope), ...opts } as never)
          : await posts.aggregate.groupBy.overAll(opts as never);
        return res.map((g) => [String(g.groupedBy.value), g.totalCount] as const);
      }),
    );

  /**
   * The top N of `field`, exact: each scope's counts are added up, and the limit widens while a
   * scope's answer is full and a value it left out could still change the top N or its counts.
   */
  const topOf = async (field: GroupField): Promise<GroupCount[]> => {
    // Room for "" (not counted) and for ties beyond the N-th value.
    let limit = Math.min(MAX_GROUP_LIMIT, query.topN * 2 + 1);
    for (;;) {
      const answers = (await inLanes(scopes, LANES, (s) => groupOf(field, limit, s))).map((found) => new Map(found));
      const sums = new Map<string, number>();
      for (const a of answers) for (const [v, c] of a) sums.set(v, (sums.get(v) ?? 0) + c);
      const top = topValues(sums, query.topN);
      const full = answers.filter((a) => a.size >= limit);
      if (full.length === 0 || limit >= MAX_GROUP_LIMIT || settled(top, sums, full, query.topN)) return top;
      limit = Math.min(MAX_GROUP_LIMIT, limit * 4);
    }
  };

  const h = query.histogram;
  const needRange = h !== undefined && (h.from === undefined || h.to === undefined);
  const totalsCall = inLanes(scopes, LANES, (s) => aggregateOver(s, needRange ? createdRange : [], true));
  const groupCalls = Promise.all([...new Set(query.groupBy)].map(async (f) => [f, await topOf(f)] as const));
  const answers = await totalsCall;
  const tops = await groupCalls;
  const total = answers.reduce((n, a) => n + a.total, 0);
  let buckets: Bucket[] = [];
  if (h && total > 0) {
    const held = answers.filter((a) => a.total > 0);
    const from = h.from ?? Math.min(...held.map((a) => Date.parse(a.props.created?.minimum ?? "")));
    const to = h.to ?? Math.max(...held.map((a) => Date.parse(a.props.created?.maximum ?? "")));
    const starts = bucketStarts(from, to, h.interval, h.maxBuckets);
    const sums = [
      m.aggregate("upvotes").integer(["sum"]),
      m.aggregate("comments").integer(["sum"]),
      m.aggregate("sentimentScore").number(["sum"]),
    ];
    // Each bucket is one call, or with a query one call per flat-search range it overlaps.
    const pieces = starts.flatMap((start) => {
      const bucket = { from: start, to: nextBucket(start, h.interval) };
      return (windows ? piecesOf(bucket, windows) : [bucket]).map((range) => ({ start, range }));
    });
    const parts = await inLanes(pieces, LANES, ({ range }) => aggregateOver(range, sums, true));
    const found = new Map<number, Bucket>();
    pieces.forEach(({ start }, i) => {
      const r = parts[i]!;
      const b = found.get(start) ?? { start, count: 0, upvotes: 0, comments: 0, sentimentSum: 0 };
      b.count += r.total;
      b.upvotes += Number(r.props.upvotes?.sum ?? 0);
      b.comments += Number(r.props.comments?.sum ?? 0);
      b.sentimentSum += r.total === 0 ? 0 : Number(r.props.sentimentScore?.sum ?? 0);
      found.set(start, b);
    });
    buckets = fillBuckets(found, { ...h, from, to });
  } else if (h && h.from !== undefined && h.to !== undefined) {
    buckets = fillBuckets(new Map(), h);
  }
  return { total, groups: tops.map(([f, top]) => groupCounts(f, top, total)), buckets };
}

/**
 * Whether `top` (from the scopes' summed counts) is final although the `full` answers may have
 * left values out: each left-out value has at most its answer's smallest count there. It is when
 * every top value's count is complete (it is in every full answer) and no other value whose count
 * is incomplete could reach the N-th count with those bounds added.
 */
function settled(
  top: readonly GroupCount[],
  sums: ReadonlyMap<string, number>,
  full: readonly ReadonlyMap<string, number>[],
  topN: number,
): boolean {
  if (top.length < topN) return false;
  const cuts = full.map((a) => Math.min(...a.values()));
  const last = top[top.length - 1]!.count;
  if (cuts.reduce((n, c) => n + c, 0) >= last) return false;
  if (!top.every((g) => full.every((a) => a.has(g.value)))) return false;
  const inTop = new Set(top.map((g) => g.value));
  for (const [value, count] of sums) {
    if (inTop.has(value) || value === "") continue;
    const missing = full.reduce((n, a, i) => n + (a.has(value) ? 0 : cuts[i]!), 0);
    if (missing > 0 && count + missing >= last) return false;
  }
  return true;
}
