/**
 * The filters every monitor kind shares (sources, subforums, authors, votes, comments,
 * sentiment, lead types), with the names the search requests use.
 */
import type { EnrichedPost } from "../model/post.js";
import type { MonitorSpec } from "./monitor-spec.js";

/** True when the post passes the monitor's common filters. */
export function passesFilters(m: MonitorSpec, p: EnrichedPost): boolean {
  if (m.sources.length > 0 && !m.sources.includes(p.source)) return false;
  if (m.subforums.length > 0 && !m.subforums.includes(p.subforum)) return false;
  if (m.excludeSubforums.includes(p.subforum)) return false;
  if (m.authors.length > 0 && !m.authors.includes(p.author)) return false;
  if (m.minUpvotes !== undefined && p.upvotes < m.minUpvotes) return false;
  if (m.minComments !== undefined && p.comments < m.minComments) return false;
  if (m.sentiments.length > 0 && !m.sentiments.includes(p.sentiment)) return false;
  if (m.leadTypes.length > 0 && !m.leadTypes.includes(p.leadType)) return false;
  return true;
}
