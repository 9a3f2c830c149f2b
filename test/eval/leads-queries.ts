/**
 * The FindLeads queries of test/eval/labels/leads-queries.tsv and the rule that judges a returned
 * post against the hand-labelled lead set (leads.tsv): relevant when the post is labelled a lead
 * and its labelled target product is one of the query's accepted values. The queries and their
 * accepted values were written before any FindLeads result was seen (decision 0034).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { isLead, type LeadLabel } from "./lead-labels.js";

/** What a query asks for: a product, a service, or a switch away from a named product. */
export const QUERY_GROUPS = ["product", "service", "switch"] as const;

/** One of {@link QUERY_GROUPS}. */
export type QueryGroup = (typeof QUERY_GROUPS)[number];

/** One written query. */
export interface LeadQuery {
  id: string;
  group: QueryGroup;
  /** The author's expectation before any result: the labelled set holds a relevant lead, or none. */
  expect: "lead" | "empty";
  query: string;
  /** Accepted target_product values, lowercase. */
  accepted: ReadonlySet<string>;
}

/** Parses the query file's text; `where` names it in errors. */
export function parseLeadQueries(text: string, where: string): LeadQuery[] {
  const seen = new Set<string>();
  const out: LeadQuery[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const at = `${where}:${i + 1}`;
    const parts = line.split("\t");
    if (parts.length !== 5)
      throw new Error(
        `${at}: expected 5 tab-separated fields (id, group, expect, query, accepted), got ${parts.length}`,
      );
    const [id, group, expect, query, accepted] = parts as [string, string, string, string, string];
    if (!(QUERY_GROUPS as readonly string[]).includes(group))
      throw new Error(`${at}: group ${JSON.stringify(group)} is not one of ${QUERY_GROUPS.join(", ")}`);
    if (expect !== "lead" && expect !== "empty")
      throw new Error(`${at}: expect ${JSON.stringify(expect)} must be lead or empty`);
    if (query.trim() === "") throw new Error(`${at}: empty query`);
    const values = accepted
      .split("|")
      .map((v) => v.trim().toLowerCase())
      .filter((v) => v !== "");
    if (values.length === 0) throw new Error(`${at}: no accepted target_product value`);
    if (seen.has(id)) throw new Error(`${at}: query id ${id} is used twice`);
    seen.add(id);
    out.push({ id, group: group as QueryGroup, expect, query: query.trim(), accepted: new Set(values) });
  });
  return out;
}

/** Reads test/eval/labels/leads-queries.tsv. */
export function loadLeadQueries(): LeadQuery[] {
  const where = path.join(PACKAGE_ROOT, "test", "eval", "labels", "leads-queries.tsv");
  return parseLeadQueries(readFileSync(where, "utf8"), where);
}

/** Whether a labelled post is a relevant lead for the query (the written rule). */
export function isRelevantLead(query: Pick<LeadQuery, "accepted">, label: LeadLabel): boolean {
  return isLead(label) && query.accepted.has(label.targetProduct.toLowerCase());
}

/** How one answer is judged. */
export interface JudgedAnswer {
  returned: number;
  relevantReturned: number;
  /** Relevant returned / returned; undefined for an empty answer. */
  precision: number | undefined;
  /** Relevant leads the labelled set holds for the query. */
  relevantInSet: number;
}

/**
 * Judges the returned post ids of one query; a returned id the labelled set does not hold is an
 * error (the index is filled with labelled posts only, so every answer can be judged).
 */
export function judgeAnswer(
  query: Pick<LeadQuery, "accepted">,
  returnedIds: readonly string[],
  labels: ReadonlyMap<string, LeadLabel>,
): JudgedAnswer {
  let relevantReturned = 0;
  for (const id of returnedIds) {
    const label = labels.get(id);
    if (label === undefined) throw new Error(`returned post ${id} is not in the labelled set`);
    if (isRelevantLead(query, label)) relevantReturned++;
  }
  let relevantInSet = 0;
  for (const label of labels.values()) if (isRelevantLead(query, label)) relevantInSet++;
  return {
    returned: returnedIds.length,
    relevantReturned,
    precision: returnedIds.length === 0 ? undefined : relevantReturned / returnedIds.length,
    relevantInSet,
  };
}
