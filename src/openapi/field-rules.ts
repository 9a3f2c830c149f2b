/**
 * What the proto cannot say about a field's values, taken from the constants the service
 * enforces: request bounds from request-rules.ts and the closed value sets of responses.
 * Numbers are never written here, so the document cannot drift from the checks.
 */

import { AGGREGATE_RULES, GROUP_BY_NAMES } from "../core/aggregate.js";
import { RULES, SORT_ORDERS, SUBFORUM_FORBIDDEN_CHARS } from "../core/request-rules.js";
import { INTERVALS } from "../index/aggregate-query.js";
import { OPERATIONS } from "../limits/operations.js";
import { LEAD_TYPES, SENTIMENT_LABELS } from "../model/post.js";
import type { JsonSchema } from "./json-schema.js";

/** Extra schema keywords for one field, and whether a request must carry it. */
export interface FieldRule {
  required?: boolean;
  /** Merged into the field's schema. */
  schema?: JsonSchema;
  /** Merged into the item schema of a repeated field. */
  items?: JsonSchema;
}

const day: FieldRule = {
  schema: {
    format: "date",
    description: `Must be a real calendar day between ${RULES.earliestDate} and ${RULES.latestDate}.`,
  },
};

/**
 * Request fields by name, whatever the request message: the service applies one rule per field
 * name (resolveLimit, requireText, ...) in every operation that has the field.
 */
export const REQUEST_FIELD_RULES: Readonly<Record<string, FieldRule>> = Object.freeze({
  // Blank after trimming is refused too; \S says "at least one non-space character".
  query: { required: true, schema: { minLength: 1, maxLength: RULES.queryMaxChars, pattern: "\\S" } },
  limit: { schema: { minimum: RULES.limitMin, maximum: RULES.limitMax, default: RULES.limitDefault } },
  min_score: { schema: { minimum: RULES.minScoreMin, maximum: RULES.minScoreMax, default: RULES.minScoreDefault } },
  subforums: {
    schema: { maxItems: RULES.subforumsMax },
    items: { minLength: 1, maxLength: RULES.subforumMaxChars, pattern: `^[^${SUBFORUM_FORBIDDEN_CHARS}]*$` },
  },
  start_date: day,
  end_date: day,
  sort: { schema: { enum: ["", ...SORT_ORDERS], default: "relevance" } },
  sources: { schema: { maxItems: RULES.filterValuesMax }, items: { pattern: "^[a-z0-9][a-z0-9_-]{0,31}$" } },
  exclude_subforums: { schema: { maxItems: RULES.filterValuesMax }, items: nameItems() },
  authors: { schema: { maxItems: RULES.filterValuesMax }, items: nameItems() },
  min_upvotes: { schema: { minimum: RULES.minUpvotesMin, maximum: RULES.minCountMax } },
  min_comments: { schema: { minimum: 0, maximum: RULES.minCountMax } },
  sentiments: { schema: { maxItems: RULES.filterValuesMax }, items: { enum: [...SENTIMENT_LABELS] } },
  lead_types: { schema: { maxItems: RULES.filterValuesMax }, items: { enum: [...LEAD_TYPES] } },
  // AggregatePosts: its query is optional (empty counts every post the filter selects).
  "threadsight.v1.AggregatePostsRequest.query": { schema: { maxLength: RULES.queryMaxChars } },
  group_by: { schema: { uniqueItems: true }, items: { enum: [...GROUP_BY_NAMES] } },
  top_n: {
    schema: {
      minimum: AGGREGATE_RULES.topNMin,
      maximum: AGGREGATE_RULES.topNMax,
      default: AGGREGATE_RULES.topNDefault,
    },
  },
  interval: { schema: { enum: ["", ...INTERVALS] } },
});

/** Items of a list of exact names (authors, excluded subforums). */
function nameItems(): JsonSchema {
  return { minLength: 1, maxLength: RULES.filterValueMaxChars, pattern: `^[^${SUBFORUM_FORBIDDEN_CHARS}]*$` };
}

/** Response fields by full name: closed value sets and formats the service guarantees. */
export const RESPONSE_FIELD_RULES: Readonly<Record<string, FieldRule>> = Object.freeze({
  "threadsight.v1.SemanticSearchResult.sentiment": { schema: { enum: [...SENTIMENT_LABELS] } },
  "threadsight.v1.Lead.lead_type": { schema: { enum: [...LEAD_TYPES] } },
  "threadsight.v1.OperationUsage.operation": { schema: { enum: [...OPERATIONS] } },
  "threadsight.v1.DateRange.start": { schema: { format: "date" } },
  "threadsight.v1.FieldCounts.field": { schema: { enum: [...GROUP_BY_NAMES] } },
  "threadsight.v1.AggregatePostsResponse.interval": { schema: { enum: ["", ...INTERVALS] } },
  "threadsight.v1.HistogramBucket.start": { schema: { format: "date" } },
  "threadsight.v1.DateRange.end": { schema: { format: "date" } },
});
