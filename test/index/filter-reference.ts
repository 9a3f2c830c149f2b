/**
 * The meaning of a QueryFilter written out in plain code, for tests to compare the engines with:
 * a post matches when it passes every restriction the filter sets.
 */

import type { QueryFilter } from "../../src/index/search-index.js";
import type { EnrichedPost } from "../../src/model/post.js";

const inList = (list: readonly string[] | undefined, value: string): boolean =>
  !list || list.length === 0 || list.includes(value);

/** Whether `post` passes `filter` (brute force, the reference for both backends). */
export function matchesFilter(post: EnrichedPost, filter: QueryFilter): boolean {
  return (
    inList(filter.subforums, post.subforum) &&
    inList(filter.sources, post.source) &&
    inList(filter.authors, post.author) &&
    inList(filter.sentiments, post.sentiment) &&
    inList(filter.leadTypes, post.leadType) &&
    !(filter.excludeSubforums ?? []).includes(post.subforum) &&
    (filter.createdFrom === undefined || post.created >= filter.createdFrom) &&
    (filter.createdTo === undefined || post.created <= filter.createdTo) &&
    (filter.minUpvotes === undefined || post.upvotes >= filter.minUpvotes) &&
    (filter.minComments === undefined || post.comments >= filter.minComments) &&
    (filter.minLeadScore === undefined || (post.leadType !== "" && post.leadScore >= filter.minLeadScore))
  );
}
