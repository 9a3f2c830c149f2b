/**
 * What AggregatePosts asks of an index, and what it gets back: counts of the matching posts by
 * a few exact-match fields (top N each) and a date histogram, computed inside the engine from
 * the fields they need, never from whole posts. Both adapters implement it; one contract suite
 * (test/index/aggregate-contract.ts) compares them with a brute-force count.
 */

import type { QueryFilter, SimilarityBound } from "./search-index.js";

/** The fields posts can be counted by, as index (camelCase) names. */
export const GROUP_FIELDS = ["subforum", "source", "sentiment", "leadType", "author"] as const;
/** One of {@link GROUP_FIELDS}. */
export type GroupField = (typeof GROUP_FIELDS)[number];

/** Histogram intervals: UTC days, ISO weeks (starting Monday, UTC) and UTC calendar months. */
export const INTERVALS = ["day", "week", "month"] as const;
/** One of {@link INTERVALS}. */
export type Interval = (typeof INTERVALS)[number];

/** An aggregate over the posts that pass `filter` (and, with `near`, are similar enough to a vector). */
export interface AggregateQuery {
  filter?: QueryFilter;
  /** Only posts whose cosine similarity to `vector` is at least `minSimilarity`. */
  near?: SimilarityBound;
  /** Fields to count by, each answered with its `topN` most frequent non-empty values. */
  groupBy: readonly GroupField[];
  topN: number;
  /**
   * A date histogram. Buckets run from the bucket of `from` to the bucket of `to` when given
   * (epoch ms), else from the first matching post's bucket to the last one's; empty buckets in
   * between are included. More than `maxBuckets` is a {@link TooManyBucketsError}.
   */
  histogram?: { interval: Interval; from?: number; to?: number; maxBuckets: number };
}

/** One value of a group field and how many matching posts hold it. */
export interface GroupCount {
  value: string;
  count: number;
}

/** The counts of one group field: the top values, and the matching posts outside them. */
export interface GroupCounts {
  field: GroupField;
  /** At most topN values, most frequent first, ties by value ascending; never "". */
  values: GroupCount[];
  /** Matching posts with another value or none (""): `total` minus the listed counts. */
  other: number;
}

/** One histogram bucket. */
export interface Bucket {
  /** First ms of the bucket, UTC. */
  start: number;
  count: number;
  upvotes: number;
  comments: number;
  /** Sum of sentimentScore over the bucket's posts (mean = sum / count). */
  sentimentSum: number;
}

/** An aggregate's answer. */
export interface AggregateResult {
  /** Matching posts. */
  total: number;
  /** One entry per asked field, in the order asked. */
  groups: GroupCounts[];
  /** Ascending by start, contiguous; empty when no histogram was asked or nothing matched (without a range). */
  buckets: Bucket[];
}

/** The histogram would have more buckets than its cap allows. */
export class TooManyBucketsError extends RangeError {
  override readonly name = "TooManyBucketsError";
  constructor(
    readonly buckets: number,
    readonly maxBuckets: number,
  ) {
    super(`the histogram would have ${buckets} buckets, more than ${maxBuckets}`);
  }
}

const DAY_MS = 86_400_000;

/** First ms (UTC) of the `interval` bucket containing `ms`. */
export function bucketStart(ms: number, interval: Interval): number {
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  if (interval === "day") return day;
  if (interval === "week") {
    // getUTCDay: 0 is Sunday; ISO weeks start on Monday.
    const back = (new Date(day).getUTCDay() + 6) % 7;
    return day - back * DAY_MS;
  }
  const d = new Date(day);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** First ms of the bucket after the one starting at `start`. */
export function nextBucket(start: number, interval: Interval): number {
  if (interval === "day") return start + DAY_MS;
  if (interval === "week") return start + 7 * DAY_MS;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Number of buckets from the bucket of `from` to the bucket of `to`, inclusive (0 when to < from). */
export function bucketSpan(from: number, to: number, interval: Interval): number {
  const first = bucketStart(from, interval);
  const last = bucketStart(to, interval);
  if (last < first) return 0;
  if (interval === "day") return (last - first) / DAY_MS + 1;
  if (interval === "week") return (last - first) / (7 * DAY_MS) + 1;
  const a = new Date(first);
  const b = new Date(last);
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1;
}

/** The bucket starts from the bucket of `from` to that of `to`; throws TooManyBucketsError past `maxBuckets`. */
export function bucketStarts(from: number, to: number, interval: Interval, maxBuckets: number): number[] {
  const n = bucketSpan(from, to, interval);
  if (n > maxBuckets) throw new TooManyBucketsError(n, maxBuckets);
  const out: number[] = [];
  for (let s = bucketStart(from, interval); out.length < n; s = nextBucket(s, interval)) out.push(s);
  return out;
}

/** Top `n` of a value -> count map (non-empty values only), most frequent first, ties by value. */
export function topValues(counts: ReadonlyMap<string, number>, n: number): GroupCount[] {
  return [...counts]
    .filter(([value, count]) => value !== "" && count > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, n)
    .map(([value, count]) => ({ value, count }));
}

/** A GroupCounts from the top values and the total. */
export function groupCounts(field: GroupField, values: GroupCount[], total: number): GroupCounts {
  return { field, values, other: total - values.reduce((s, v) => s + v.count, 0) };
}

/**
 * The histogram's buckets, filled: `found` holds the non-empty buckets by start; the range is
 * the query's `from`..`to`, or the first and last found bucket.
 */
export function fillBuckets(
  found: ReadonlyMap<number, Bucket>,
  histogram: NonNullable<AggregateQuery["histogram"]>,
): Bucket[] {
  const starts = [...found.keys()];
  const from = histogram.from ?? (starts.length > 0 ? Math.min(...starts) : undefined);
  const to = histogram.to ?? (starts.length > 0 ? Math.max(...starts) : undefined);
  if (from === undefined || to === undefined) return [];
  return bucketStarts(from, to, histogram.interval, histogram.maxBuckets).map(
    (start) => found.get(start) ?? { start, count: 0, upvotes: 0, comments: 0, sentimentSum: 0 },
  );
}
