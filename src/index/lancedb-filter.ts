/**
 * QueryFilter -> a LanceDB (DataFusion SQL) predicate. Every value is data, never syntax:
 * strings become single-quoted literals with quotes doubled, numbers must be finite and are
 * printed by the number formatter, and column names are fixed here, never taken from input.
 */
import type { QueryFilter } from "./search-index.js";
import { checkFilter } from "./query-checks.js";

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

/**
 * The predicate for `filter`, or undefined when nothing is restricted. `created` bounds are
 * inclusive epoch ms (fractions are floored/ceiled to whole ms, which is what rows hold); an
 * empty `subforums` list restricts nothing.
 */
export function lanceWhere(filter: QueryFilter | undefined): string | undefined {
  if (!filter) return undefined;
  checkFilter(filter);
  const parts: string[] = [];
  if (filter.subforums && filter.subforums.length > 0) {
    parts.push(`subforum IN (${filter.subforums.map(sqlString).join(", ")})`);
  }
  if (filter.createdFrom !== undefined) parts.push(`created >= ${sqlNumber(Math.ceil(filter.createdFrom))}`);
  if (filter.createdTo !== undefined) parts.push(`created <= ${sqlNumber(Math.floor(filter.createdTo))}`);
  if (filter.minLeadScore !== undefined) {
    parts.push(`lead_type <> '' AND lead_score >= ${sqlNumber(filter.minLeadScore)}`);
  }
  return parts.length > 0 ? parts.map((p) => `(${p})`).join(" AND ") : undefined;
}

/** `id IN (...)` for a list of ids. */
export function idsWhere(ids: readonly string[]): string {
  return `id IN (${ids.map(sqlString).join(", ")})`;
}
