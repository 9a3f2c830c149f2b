/**
 * The meaning of an AggregateQuery written out in plain code, for tests to compare the engines
 * with: filter every post (filter-reference.ts), keep those similar enough to the query vector,
 * count values and sum buckets. Bucket starts are computed here on their own, from calendar
 * fields, not with the service's bucket arithmetic.
 */

import type { AggregateQuery, AggregateResult, Bucket, GroupField } from "../../src/index/aggregate-query.js";
import type { IndexedPost } from "../../src/model/post.js";
import { matchesFilter } from "./filter-reference.js";
import { cosine } from "./synthetic.js";

/** The UTC calendar start of the day, ISO week (Monday) or month holding `ms`. */
export function referenceBucket(ms: number, interval: "day" | "week" | "month"): number {
  const d = new Date(ms);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  if (interval === "month") return Date.UTC(y, m, 1);
  if (interval === "day") return Date.UTC(y, m, day);
  const weekday = d.getUTCDay() === 0 ? 7 : d.getUTCDay();
  return Date.UTC(y, m, day - (weekday - 1));
}

function following(start: number, interval: "day" | "week" | "month"): number {
  const d = new Date(start);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  return interval === "month" ? Date.UTC(y, m + 1, 1) : Date.UTC(y, m, day + (interval === "week" ? 7 : 1));
}

/** The aggregate of `query` over `posts`, by brute force. */
export function referenceAggregate(posts: readonly IndexedPost[], query: AggregateQuery): AggregateResult {
  const set = posts.filter(
    (p) =>
      matchesFilter(p, query.filter ?? {}) &&
      (!query.near || cosine(p.vector, query.near.vector) >= query.near.minSimilarity),
  );
  const groups = [...new Set(query.groupBy)].map((field: GroupField) => {
    const counts = new Map<string, number>();
    for (const p of set) counts.set(p[field], (counts.get(p[field]) ?? 0) + 1);
    counts.delete("");
    const values = [...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, query.topN)
      .map(([value, count]) => ({ value, count }));
    return { field, values, other: set.length - values.reduce((s, v) => s + v.count, 0) };
  });
  const h = query.histogram;
  const buckets: Bucket[] = [];
  if (h) {
    const starts = set.map((p) => referenceBucket(p.created, h.interval));
    const first = h.from !== undefined ? referenceBucket(h.from, h.interval) : Math.min(...starts);
    const last = h.to !== undefined ? referenceBucket(h.to, h.interval) : Math.max(...starts);
    if (set.length > 0 || (h.from !== undefined && h.to !== undefined)) {
      for (let s = first; s <= last; s = following(s, h.interval)) {
        const inIt = set.filter((p) => referenceBucket(p.created, h.interval) === s);
        buckets.push({
          start: s,
          count: inIt.length,
          upvotes: inIt.reduce((a, p) => a + p.upvotes, 0),
          comments: inIt.reduce((a, p) => a + p.comments, 0),
          sentimentSum: inIt.reduce((a, p) => a + p.sentimentScore, 0),
        });
      }
    }
  }
  return { total: set.length, groups, buckets };
}
