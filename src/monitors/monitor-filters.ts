/**
 * A monitor's filter is a PostFilter, resolved by the search side's rules (resolveFilter) into
 * the QueryFilter the engines read, and checked per post with the same meaning
 * (passesQueryFilter). Only the field paths of errors differ: they start at the monitor.
 */
import type { FilterParams } from "../core/request-rules.js";
import { resolveFilter } from "../core/request-rules.js";
import { AppError } from "../errors/app-error.js";
import type { QueryFilter } from "../index/search-index.js";

/** A PostFilter that restricts nothing. */
export function emptyFilter(): FilterParams {
  return {
    startDate: "",
    endDate: "",
    sources: [],
    subforums: [],
    excludeSubforums: [],
    authors: [],
    sentiments: [],
    leadTypes: [],
  };
}

/**
 * The monitor's filter as a QueryFilter. `prefix` is where the monitor sits in the request
 * ("monitor"), so an error names e.g. `monitor.filter.sentiments[0]`.
 * @throws AppError from resolveFilter, its field path and message prefixed.
 */
export function resolveMonitorFilter(filter: FilterParams, prefix = "monitor"): QueryFilter {
  try {
    return resolveFilter(filter);
  } catch (err) {
    if (!(err instanceof AppError) || err.metadata.field === undefined) throw err;
    const field = err.metadata.field;
    const message = err.message.startsWith(field) ? `${prefix}.${err.message}` : err.message;
    throw new AppError(err.kind, message, { ...err.metadata, field: `${prefix}.${field}` }, { cause: err });
  }
}
