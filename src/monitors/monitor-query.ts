/**
 * The text a monitor is matched by: what SemanticSearch or FindLeads would retrieve for the same
 * query. A search monitor drops an opinion frame ("thoughts on X" is matched as "X",
 * query-subject.ts) and a leads monitor its ask or switch frame ("looking for a CRM" as "CRM",
 * lead-query.ts), both for the embedding and for the words coverage counts, so that a monitor
 * and the query it was saved from score a post from the same text. Keyword expressions are used
 * as written.
 */
import { leadQuerySubject } from "../core/lead-query.js";
import { querySubject } from "../core/query-subject.js";
import type { MonitorSpec } from "./monitor-spec.js";

/** The subject a search or leads monitor embeds and covers; the query itself for keywords. */
export function monitorQueryText(m: Pick<MonitorSpec, "kind" | "query">): string {
  if (m.kind === "search") return querySubject(m.query);
  if (m.kind === "leads") return leadQuerySubject(m.query);
  return m.query;
}
