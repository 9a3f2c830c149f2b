/**
 * QueryFilter -> a Weaviate filter. Values travel as typed gRPC fields, never as query text, so
 * a subforum name cannot change the filter's structure; dates are sent with millisecond
 * precision and both bounds are inclusive.
 */
import { Filters } from "weaviate-client";
import type { FilterValue } from "weaviate-client";
import { LEAD_TYPES } from "../model/post.js";
import type { QueryFilter } from "./search-index.js";
import { checkFilter } from "./query-checks.js";

/** The property-filter builder of a collection (`collection.filter`). */
export interface FilterBuilder {
  byProperty(name: string): {
    containsAny(values: string[]): FilterValue;
    greaterOrEqual(value: number | Date): FilterValue;
    lessOrEqual(value: number | Date): FilterValue;
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
    // "Is a lead" as the lead types it may be rather than `!= ""`: the same posts (ingest writes
    // nothing else), but Weaviate resolves a short containsAny from its filterable index, while
    // notEqual builds the complement of "" over every object; at 93k posts the filtered hybrid
    // of FindLeads took ~33 ms with notEqual and ~23 ms with containsAny (same 24,650 matches).
    parts.push(f.byProperty("leadType").containsAny([...LEAD_TYPES]), f.byProperty("leadScore").greaterOrEqual(filter.minLeadScore));
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : Filters.and(...parts);
}
