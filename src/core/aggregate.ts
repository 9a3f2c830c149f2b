/**
 * AggregatePosts: validate the request, embed the query when there is one, and ask the index for
 * counts and a histogram of the posts the filter (and the relevance threshold) selects. Shared
 * by every protocol; knows nothing of HTTP or Connect.
 */
import type { Embedder } from "../enrich/embedder.js";
import { AppError } from "../errors/app-error.js";
import type { AggregateResult, GroupField, Interval } from "../index/aggregate-query.js";
import { bucketSpan, INTERVALS, TooManyBucketsError } from "../index/aggregate-query.js";
import type { SearchIndex } from "../index/search-index.js";
import { minSimilarityFor } from "./relevance-threshold.js";
import type { FilterParams } from "./request-rules.js";
import { boundedInt, requireText, resolveFilter } from "./request-rules.js";

/** Bounds of AggregatePosts. */
export const AGGREGATE_RULES = Object.freeze({
  topNDefault: 10,
  topNMin: 1,
  topNMax: 100,
  /** Most histogram buckets one call returns (a day histogram of about two and a half years). */
  maxBuckets: 1000,
});

/** The group_by names of the API and the index field each counts. */
const GROUP_BY: Readonly<Record<string, GroupField>> = {
  subforum: "subforum",
  source: "source",
  sentiment: "sentiment",
  lead_type: "leadType",
  author: "author",
};

/** The group_by names the API accepts, in documented order. */
export const GROUP_BY_NAMES: readonly string[] = Object.keys(GROUP_BY);

/** An aggregate request after transport decoding. */
export interface AggregateParams {
  query: string;
  filter?: FilterParams | undefined;
  groupBy: readonly string[];
  topN: number | undefined;
  interval: string;
}

/** The aggregate and what it was computed with. */
export interface AggregateOutcome extends AggregateResult {
  /** The API name of each entry of `groups`, in the same order. */
  groupNames: string[];
  /** The similarity threshold applied; undefined without a query. */
  minSimilarity: number | undefined;
}

/** `group_by`: known names, each at most once. */
function resolveGroupBy(values: readonly string[]): string[] {
  const names = GROUP_BY_NAMES;
  const seen = new Set<string>();
  values.forEach((name, i) => {
    const field = `group_by[${i}]`;
    if (!(name in GROUP_BY)) {
      throw new AppError(
        "INVALID_ARGUMENT",
        `${field} must be one of ${names.map((n) => `"${n}"`).join(", ")}, got "${name}"`,
        {
          field,
        },
      );
    }
    if (seen.has(name))
      throw new AppError("INVALID_ARGUMENT", `${field} repeats "${name}"; list each field once`, { field });
    seen.add(name);
  });
  return [...seen];
}

/** `interval`: "" (no histogram) or one of INTERVALS. */
function resolveInterval(value: string): Interval | undefined {
  if (value === "") return undefined;
  if (!(INTERVALS as readonly string[]).includes(value)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `interval must be one of ${INTERVALS.map((i) => `"${i}"`).join(", ")}, got "${value}"`,
      { field: "interval" },
    );
  }
  return value as Interval;
}

/** The error for a histogram past the bucket cap, naming `interval`. */
function tooManyBuckets(interval: Interval, err: TooManyBucketsError): AppError {
  return new AppError(
    "OUT_OF_RANGE",
    `interval "${interval}" gives ${err.buckets} buckets here, more than ${err.maxBuckets}; choose a coarser interval or a shorter filter.start_date..filter.end_date`,
    { field: "interval" },
  );
}

/** The aggregate use case. */
export class AggregateCore {
  constructor(private readonly deps: { index: SearchIndex; embedder: Embedder }) {}

  /** Counts and histogram of the posts `params` selects. */
  async aggregate(params: AggregateParams, signal: AbortSignal): Promise<AggregateOutcome> {
    const query = params.query.trim() === "" ? undefined : requireText("query", params.query);
    const filter = resolveFilter(params.filter);
    const groupNames = resolveGroupBy(params.groupBy);
    const topN = boundedInt(
      "top_n",
      params.topN,
      AGGREGATE_RULES.topNDefault,
      AGGREGATE_RULES.topNMin,
      AGGREGATE_RULES.topNMax,
    );
    const interval = resolveInterval(params.interval);
    if (interval && filter.createdFrom !== undefined && filter.createdTo !== undefined) {
      const n = bucketSpan(filter.createdFrom, filter.createdTo, interval);
      if (n > AGGREGATE_RULES.maxBuckets)
        throw tooManyBuckets(interval, new TooManyBucketsError(n, AGGREGATE_RULES.maxBuckets));
    }
    const index = this.deps.index;
    if (!index.aggregate)
      throw new AppError("UNIMPLEMENTED", `AggregatePosts is not available on the ${index.backend} index`);
    const minSimilarity = query === undefined ? undefined : minSimilarityFor(this.deps.embedder.model);
    const vector = query === undefined ? undefined : (await this.deps.embedder.embed([query], signal))[0]!;
    try {
      const result = await index.aggregate(
        {
          filter,
          ...(vector !== undefined && minSimilarity !== undefined ? { near: { vector, minSimilarity } } : {}),
          groupBy: groupNames.map((n) => GROUP_BY[n]!),
          topN,
          ...(interval
            ? {
                histogram: {
                  interval,
                  ...(filter.createdFrom !== undefined ? { from: filter.createdFrom } : {}),
                  ...(filter.createdTo !== undefined ? { to: filter.createdTo } : {}),
                  maxBuckets: AGGREGATE_RULES.maxBuckets,
                },
              }
            : {}),
        },
        signal,
      );
      return { ...result, groupNames, minSimilarity };
    } catch (err) {
      throw err instanceof TooManyBucketsError && interval ? tooManyBuckets(interval, err) : err;
    }
  }
}
