/**
 * A JSON Schema of the REST contract, written by hand from parts 2 and 4 of the spec (not
 * generated from our proto, so it can catch the proto drifting from the spec). Every REST
 * response a test receives is validated against it via `assertRestContract`.
 * Fields we add beyond the spec (next_page_token) are allowed explicitly, nothing else is.
 */
import assert from "node:assert/strict";
import type { ValidateFunction } from "ajv";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

const int = { type: "integer" } as const;
const num = { type: "number" } as const;
const str = { type: "string" } as const;
const isoUtc = { type: "string", format: "date-time", pattern: "Z$" } as const;
const day = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" } as const;

function object(properties: Record<string, unknown>, optional: string[] = []): Record<string, unknown> {
  return {
    type: "object",
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}

/** 2.1 */
const semanticResult = object({
  id: str,
  title: str,
  content: str,
  subforum: str,
  upvotes: int,
  comments: int,
  created: isoUtc,
  relevance: num,
  sentiment: { enum: ["positive", "neutral", "negative"] },
  url: str,
});
/** 2.2: as 2.1 without relevance and sentiment, with similarity_score. */
const vectorResult = object({
  id: str,
  title: str,
  content: str,
  subforum: str,
  upvotes: int,
  comments: int,
  created: isoUtc,
  similarity_score: num,
  url: str,
});
/** 2.4 */
const samplePost = object({ id: str, title: str, subforum: str, upvotes: int, comments: int, created: isoUtc });
/** 2.3 */
const trend = object({
  id: str,
  topic: str,
  post_count: int,
  total_upvotes: int,
  total_comments: int,
  avg_sentiment: num,
  top_subforums: { type: "array", items: str },
  trending_keywords: { type: "array", items: str },
  sample_posts: { type: "array", items: samplePost },
  trend_score: num,
  growth_rate: num,
});
/** 2.5 */
const lead = object({
  id: str,
  title: str,
  content: str,
  subforum: str,
  author: str,
  upvotes: int,
  comments: int,
  lead_score: int,
  lead_type: { enum: ["pain_point", "solution_request", "buying_intent", "comparison", "advice_request"] },
  pain_point: str,
  opportunity: str,
  industry: str,
  target_product: str,
  url: str,
});

/** Response `data` per endpoint path (4.1-4.4, plus our usage endpoint). */
const DATA: Record<string, Record<string, unknown>> = {
  "/api/v1/search/semantic": object(
    {
      query: str,
      results: { type: "array", items: semanticResult },
      total: int,
      processing_time_ms: int,
      ai_summary: str,
      next_page_token: str,
    },
    ["next_page_token"],
  ),
  "/api/v1/search/vector": object(
    {
      query: str,
      results: { type: "array", items: vectorResult },
      total: int,
      processing_time_ms: int,
      next_page_token: str,
    },
    ["next_page_token"],
  ),
  "/api/v1/trends": object({
    trends: { type: "array", items: trend },
    total: int,
    date_range: object({ start: day, end: day }),
    processing_time_ms: int,
  }),
  "/api/v1/leads": object({ query: str, results: { type: "array", items: lead }, total: int, processing_time_ms: int }),
  "/api/v1/aggregate": object({
    query: str,
    total: int,
    groups: {
      type: "array",
      items: object({
        field: { enum: ["subforum", "source", "sentiment", "lead_type", "author"] },
        values: { type: "array", items: object({ value: { type: "string", minLength: 1 }, count: int }) },
        other_count: int,
      }),
    },
    interval: { enum: ["", "day", "week", "month"] },
    histogram: {
      type: "array",
      items: object({ start: day, post_count: int, total_upvotes: int, total_comments: int, mean_sentiment: num }),
    },
    min_similarity: num,
    processing_time_ms: int,
  }),
  "/api/v1/usage": object({
    plan: str,
    period_start: isoUtc,
    period_end: isoUtc,
    used: int,
    limit: int,
    remaining: int,
    unlimited: { type: "boolean" },
    rate_limit_per_minute: int,
    operations: { type: "array", items: object({ operation: str, count: int }) },
  }),
};

const errorBody = object({
  success: { const: false },
  error: object({
    code: { type: "string", pattern: "^[a-z_]+$" },
    reason: { type: "string", pattern: "^[A-Z_]+$" },
    message: { type: "string", minLength: 1 },
    request_id: { type: "string", minLength: 1 },
  }),
});

const ajv = new Ajv({ allErrors: true, strict: true });
(addFormatsModule as unknown as (a: Ajv) => void)(ajv);
const successValidators = new Map<string, ValidateFunction>(
  Object.entries(DATA).map(([path, data]) => [path, ajv.compile(object({ success: { const: true }, data }))]),
);
const errorValidator = ajv.compile(errorBody);

/** Canonical path for a request path (the /v1 alias maps to /api/v1). */
function canonical(path: string): string {
  const p = path.split("?")[0]!;
  return p.startsWith("/v1/") ? `/api${p}` : p;
}

/** Asserts that a REST response body matches the contract for its path and status. */
export function assertRestContract(path: string, status: number, body: unknown): void {
  if (status >= 400) {
    assert.ok(
      errorValidator(body),
      `error body breaks the contract: ${ajv.errorsText(errorValidator.errors)}\n${JSON.stringify(body)}`,
    );
    return;
  }
  const validate = successValidators.get(canonical(path));
  assert.ok(validate !== undefined, `no contract schema for ${path}`);
  assert.ok(
    validate(body),
    `${path} response breaks the contract: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
  );
}

/** The hand-written schemas, so the generated OpenAPI document can be compared with the spec. */
export const SPEC_SCHEMAS = { data: DATA, error: errorBody } as const;
