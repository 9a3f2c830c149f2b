/**
 * AggregatePosts on LanceDB. Its query API has filters and projections but no GROUP BY, so an
 * aggregate is one filtered scan of only the columns it needs (the grouped fields, and created,
 * upvotes, comments and sentiment_score for a histogram), streamed batch by batch and folded
 * here: memory stays O(distinct values + buckets), and titles, texts and vectors are never read.
 * With a query vector the scan is an exact (flat) vector search restricted to the cosine
 * distances within the threshold, so the set is every post above it, not an approximate top k.
 */

import type { Table } from "@lancedb/lancedb";
import type { RecordBatch } from "apache-arrow";
import { checkAborted } from "../abort.js";
import type { AggregateQuery, AggregateResult, Bucket, GroupField } from "../aggregate-query.js";
import { bucketStart, fillBuckets, groupCounts, topValues } from "../aggregate-query.js";
import { numberColumn, repeatedStrings } from "./arrow-columns.js";
import { lanceWhere } from "./filter.js";
import { thresholdQuery } from "./queries.js";

/** Table column of each group field. */
const COLUMN: Readonly<Record<GroupField, string>> = {
  subforum: "subforum",
  source: "source",
  sentiment: "sentiment",
  leadType: "lead_type",
  author: "author",
};

const HISTOGRAM_COLUMNS = ["created", "upvotes", "comments", "sentiment_score"] as const;

/** The scan (or thresholded vector search) over the needed columns, as an async iterable of batches. */
function scanOf(table: Table, query: AggregateQuery, columns: string[], rows: number): AsyncIterable<RecordBatch> {
  const where = lanceWhere(query.filter);
  if (!query.near) {
    const q = table.query().select(columns);
    return where ? q.where(where) : q;
  }
  // The limit must be set and is every row, so only the threshold bounds the set.
  return thresholdQuery(table, query.near, where, rows, columns);
}

/** Runs `query` over `table` (the posts table); the caller maps engine errors. */
export async function aggregateLance(
  table: Table,
  query: AggregateQuery,
  signal?: AbortSignal,
): Promise<AggregateResult> {
  checkAborted(signal);
  const fields = [...new Set(query.groupBy)];
  const columns = [...new Set([...fields.map((f) => COLUMN[f]), ...(query.histogram ? HISTOGRAM_COLUMNS : [])])];
  // A scan needs at least one column; `created` is small.
  if (columns.length === 0) columns.push("created");
  const rows = query.near ? await table.countRows() : 0;
  const counts = new Map<GroupField, Map<string, number>>(fields.map((f) => [f, new Map()]));
  const found = new Map<number, Bucket>();
  const interval = query.histogram?.interval;
  let total = 0;
  for await (const batch of scanOf(table, query, columns, rows)) {
    checkAborted(signal);
    const n = batch.numRows;
    total += n;
    for (const f of fields) {
      const read = repeatedStrings(batch, COLUMN[f]);
      const m = counts.get(f)!;
      for (let i = 0; i < n; i++) {
        const v = read(i);
        m.set(v, (m.get(v) ?? 0) + 1);
      }
    }
    if (interval) {
      const created = numberColumn(batch, "created");
      const up = numberColumn(batch, "upvotes");
      const com = numberColumn(batch, "comments");
      const sent = numberColumn(batch, "sentiment_score");
      for (let i = 0; i < n; i++) {
        const start = bucketStart(created[i]!, interval);
        let b = found.get(start);
        if (!b) found.set(start, (b = { start, count: 0, upvotes: 0, comments: 0, sentimentSum: 0 }));
        b.count++;
        b.upvotes += up[i]!;
        b.comments += com[i]!;
        b.sentimentSum += sent[i]!;
      }
    }
  }
  return {
    total,
    groups: fields.map((f) => groupCounts(f, topValues(counts.get(f)!, query.topN), total)),
    buckets: query.histogram ? fillBuckets(found, query.histogram) : [],
  };
}
