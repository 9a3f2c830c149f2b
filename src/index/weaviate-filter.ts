/**
 * QueryFilter -> a Weaviate filter. Values travel as typed gRPC fields, never as query text, so
 * a subforum name cannot change the filter's structure; dates are sent with millisecond
 * precision and both bounds are inclusive.
 */
import { Filters } from "weaviate-client";
import type { FilterValue } from "weaviate-client";
import type { QueryFilter } from "./search-index.js";
import { checkFilter } from "./query-checks.js";

/** The property-filter builder of a collection (`collection.filter`). */
export interface FilterBuilder {
  byProperty(name: string): {
    containsAny(values: string[]): FilterValue;
    greaterOrEqual(value: number | Date): FilterValue;
    lessOrEqual(value: number | Date): FilterValue;
    notEqual(value: string): FilterValue;
  };
}

/** The Weaviate filter for `filter`, or undefined when nothing is restricted. */
export function weaviateWhere(f: FilterBuilder, filter: QueryFilter | undefined): FilterValue | undefined {
  if (!filter) return undefined;
  checkFilter(filter);
  const parts: FilterValue[] = [];
  if (filter.subforums && filter.subforums.length > 0) parts.push(f.byProperty("subforum").containsAny([...filter.subforums]));
  if (filter.createdFrom !== undefined) parts.push(f.byProperty("created").greaterOrEqual(new Date(Math.ceil(filter.createdFrom))));
  if (filter.createdTo !== undefined) parts.push(f.byProperty("created").lessOrEqual(new Date(Math.floor(filter.createdTo))));
  if (filter.minLeadScore !== undefined) {
    parts.push(f.byProperty("leadType").notEqual(""), f.byProperty("leadScore").greaterOrEqual(filter.minLeadScore));
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : Filters.and(...parts);
}
