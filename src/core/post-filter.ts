/**
 * The meaning of a resolved PostFilter for one post in memory, for callers that see posts one at
 * a time (monitors) rather than asking an index. It reads the same QueryFilter the search side
 * hands the engines, so a monitor and a search with the same filter accept the same posts.
 */
import type { QueryFilter } from "../index/search-index.js";
import type { EnrichedPost } from "../model/post.js";

function inList(list: readonly string[] | undefined, value: string): boolean {
  return list === undefined || list.length === 0 || list.includes(value);
}

/** True when the post passes every restriction the filter sets. */
export function passesQueryFilter(filter: QueryFilter, post: EnrichedPost): boolean {
  return (
    inList(filter.subforums, post.subforum) &&
    inList(filter.sources, post.source) &&
    inList(filter.authors, post.author) &&
    inList(filter.sentiments, post.sentiment) &&
    // A lead-type filter never accepts "", the type of a post that is not a lead.
    (filter.leadTypes === undefined ||
      filter.leadTypes.length === 0 ||
      (post.leadType !== "" && filter.leadTypes.includes(post.leadType))) &&
    !(filter.excludeSubforums ?? []).includes(post.subforum) &&
    (filter.createdFrom === undefined || post.created >= filter.createdFrom) &&
    (filter.createdTo === undefined || post.created <= filter.createdTo) &&
    (filter.minUpvotes === undefined || post.upvotes >= filter.minUpvotes) &&
    (filter.minComments === undefined || post.comments >= filter.minComments) &&
    (filter.minLeadScore === undefined || (post.leadType !== "" && post.leadScore >= filter.minLeadScore))
  );
}
