/**
 * QueryFilter -> a Weaviate filter. Values travel as typed gRPC fields, never as query text, so
 * a subforum name cannot change the filter's structure; dates are sent with millisecond
 * precision and both bounds are inclusive.
 */

import type { FilterValue } from "weaviate-client";
import { Filters } from "weaviate-client";
import { LEAD_TYPES } from "../../model/post.js";
import { checkFilter } from "../query-checks.js";
import type { QueryFilter, ScanCursor } from "../search-index.js";

/** The property-filter builder of a collection (`collection.filter`). */
export interface FilterBuilder {
  byProperty(name: string): {
    containsAny(values: string[]): FilterValue;
    containsNone(values: string[]): FilterValue;
    greaterOrEqual(value: number | Date): FilterValue;
    lessOrEqual(value: number | Date): FilterValue;
  };
}

/** The Weaviate filter for `filter`, or undefined when nothing is restricted. */
export function weaviateWhere(f: FilterBuilder, filter: QueryFilter | undefined): FilterValue | undefined {
  if (!filter) return undefined;
  checkFilter(filter);
  const parts: FilterValue[] = [];
  const anyOf = (property: string, values: readonly string[] | undefined): void => {
    if (values && values.length > 0) parts.push(f.byProperty(property).containsAny([...values]));
  };
  anyOf("subforum", filter.subforums);
  anyOf("source", filter.sources);
  anyOf("author", filter.authors);
  anyOf("sentiment", filter.sentiments);
  anyOf("leadType", filter.leadTypes);
  if (filter.excludeSubforums && filter.excludeSubforums.length > 0)
    parts.push(f.byProperty("subforum").containsNone([...filter.excludeSubforums]));
  if (filter.createdFrom !== undefined)
    parts.push(f.byProperty("created").greaterOrEqual(new Date(Math.ceil(filter.createdFrom))));
  if (filter.createdTo !== undefined)
    parts.push(f.byProperty("created").lessOrEqual(new Date(Math.floor(filter.createdTo))));
  // Stored counts are whole numbers, so a fractional minimum means the next whole one (as in SQL).
  if (filter.minUpvotes !== undefined) parts.push(f.byProperty("upvotes").greaterOrEqual(Math.ceil(filter.minUpvotes)));
  if (filter.minComments !== undefined)
    parts.push(f.byProperty("comments").greaterOrEqual(Math.ceil(filter.minComments)));
  if (filter.minLeadScore !== undefined) {
    // "Is a lead" as the lead types it may be rather than `!= ""`: the same posts (ingest writes
    // nothing else), but Weaviate resolves a short containsAny from its filterable index, while
    // notEqual builds the complement of "" over every object.
    parts.push(
      f.byProperty("leadType").containsAny([...LEAD_TYPES]),
      f.byProperty("leadScore").greaterOrEqual(filter.minLeadScore),
    );
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : Filters.and(...parts);
}

/** The comparisons a scan's keyset filter needs (`collection.filter.byProperty`). */
export interface KeysetFilterBuilder {
  byProperty(name: string): {
    greaterThan(value: string | Date): FilterValue;
    greaterOrEqual(value: Date): FilterValue;
  };
}

/**
 * The keyset filter of a scan page: posts strictly after `after` in (created, postId) order.
 * The id travels as a typed value; Weaviate compares text by its bytes, as LanceDB does.
 */
export function weaviateAfter(f: KeysetFilterBuilder, after: ScanCursor): FilterValue {
  const created = new Date(Math.trunc(after.created));
  // created >= c AND (created > c OR postId > id): the same posts as the textbook OR form, with
  // a range conjunct the created index answers first.
  return Filters.and(
    f.byProperty("created").greaterOrEqual(created),
    Filters.or(f.byProperty("created").greaterThan(created), f.byProperty("postId").greaterThan(after.id)),
  );
}
