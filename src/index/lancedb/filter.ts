/**
 * QueryFilter -> a LanceDB (DataFusion SQL) predicate. Every value is data, never syntax:
 * strings become single-quoted literals with quotes doubled, numbers must be finite and are
 * printed by the number formatter, and column names are fixed here, never taken from input.
 */

import { checkFilter } from "../query-checks.js";
import type { QueryFilter, ScanCursor } from "../search-index.js";

/** An SQL string literal for `value`; NUL (which SQL strings cannot hold) is rejected. */
export function sqlString(value: string): string {
  if (value.includes("\u0000")) throw new RangeError("filter strings must not contain NUL characters");
  return `'${value.replaceAll("'", "''")}'`;
}

/** An SQL numeric literal for a finite number. */
export function sqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`filter numbers must be finite, got ${value}`);
  return String(value);
}

/** `column IN (...)` over string literals, or undefined for an absent or empty list. */
function inList(column: string, values: readonly string[] | undefined): string | undefined {
  return values && values.length > 0 ? `${column} IN (${values.map(sqlString).join(", ")})` : undefined;
}

/**
 * The predicate for `filter`, or undefined when nothing is restricted. `created` bounds are
 * inclusive epoch ms (fractions are floored/ceiled to whole ms, which is what rows hold), count
 * minimums are inclusive; an empty list restricts nothing.
 */
export function lanceWhere(filter: QueryFilter | undefined): string | undefined {
  if (!filter) return undefined;
  checkFilter(filter);
  const parts: string[] = [];
  const push = (p: string | undefined): void => {
    if (p !== undefined) parts.push(p);
  };
  push(inList("subforum", filter.subforums));
  push(inList("source", filter.sources));
  push(inList("author", filter.authors));
  push(inList("sentiment", filter.sentiments));
  push(inList("lead_type", filter.leadTypes));
  if (filter.excludeSubforums && filter.excludeSubforums.length > 0)
    push(`NOT ${inList("subforum", filter.excludeSubforums)!}`);
  if (filter.createdFrom !== undefined) parts.push(`created >= ${sqlNumber(Math.ceil(filter.createdFrom))}`);
  if (filter.createdTo !== undefined) parts.push(`created <= ${sqlNumber(Math.floor(filter.createdTo))}`);
  if (filter.minUpvotes !== undefined) parts.push(`upvotes >= ${sqlNumber(Math.ceil(filter.minUpvotes))}`);
  if (filter.minComments !== undefined) parts.push(`comments >= ${sqlNumber(Math.ceil(filter.minComments))}`);
  if (filter.minLeadScore !== undefined) {
    parts.push(`lead_type <> '' AND lead_score >= ${sqlNumber(filter.minLeadScore)}`);
  }
  return parts.length > 0 ? parts.map((p) => `(${p})`).join(" AND ") : undefined;
}

/** `id IN (...)` for a list of ids. */
export function idsWhere(ids: readonly string[]): string {
  return `id IN (${ids.map(sqlString).join(", ")})`;
}

/**
 * The keyset predicate of a scan page: posts strictly after `after` in (created, id) order,
 * written with a bare `created >=` conjunct so that the btree index on `created` can skip
 * the rows earlier pages read. DataFusion compares the ids by their UTF-8 bytes.
 */
export function afterWhere(after: ScanCursor): string {
  const created = sqlNumber(Math.trunc(after.created));
  return `created >= ${created} AND (created > ${created} OR id > ${sqlString(after.id)})`;
}
