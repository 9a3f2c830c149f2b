import assert from "node:assert/strict";
import { test } from "node:test";
import { SemanticSearchRequestSchema, VectorSearchRequestSchema } from "../../gen/threadsight/v1/search_pb.js";
import { GetUsageRequestSchema } from "../../gen/threadsight/v1/usage_pb.js";
import { AppError } from "../../src/errors/app-error.js";
import { strictFromJson } from "../../src/gateway/strict-json.js";

function fails(
  body: unknown,
  kind: string,
  message: RegExp,
  schema = SemanticSearchRequestSchema as
    | typeof SemanticSearchRequestSchema
    | typeof VectorSearchRequestSchema
    | typeof GetUsageRequestSchema,
): void {
  assert.throws(
    () => strictFromJson(schema, body),
    (e: unknown) => e instanceof AppError && e.kind === kind && message.test(e.message),
  );
}

test("accepts snake_case and camelCase names; null is absent", () => {
  const a = strictFromJson(VectorSearchRequestSchema, { query: "q", start_date: "2016-01-01", limit: 3 });
  assert.equal(a.startDate, "2016-01-01");
  assert.equal(a.limit, 3);
  const b = strictFromJson(VectorSearchRequestSchema, { query: "q", startDate: "2016-01-02", limit: null });
  assert.equal(b.startDate, "2016-01-02");
  assert.equal(b.limit, undefined);
});

test("unknown fields are named with a suggestion", () => {
  fails({ query: "q", limt: 1 }, "UNKNOWN_FIELD", /"limt" \(did you mean "limit"\?\)/);
  fails({ query: "q", zzzzzz: 1 }, "UNKNOWN_FIELD", /^unknown field "zzzzzz"; allowed fields/);
  fails({ anything: 1 }, "UNKNOWN_FIELD", /takes no fields/, GetUsageRequestSchema);
});

test("types are strict", () => {
  fails({ query: "q", limit: "5" }, "WRONG_TYPE", /^limit must be an integer/);
  fails({ query: "q", limit: 2.5 }, "WRONG_TYPE", /integer/);
  fails({ query: 5 }, "WRONG_TYPE", /^query must be a string, got number/);
  fails({ query: "q", subforums: "startups" }, "WRONG_TYPE", /^subforums must be an array/);
  fails({ query: "q", subforums: ["ok", 3] }, "WRONG_TYPE", /^subforums\[1\] must be a string/);
  fails({ query: "q", limit: 2 ** 31 }, "OUT_OF_RANGE", /32-bit/);
  fails({ query: "bad \uD800 surrogate" }, "INVALID_ARGUMENT", /valid Unicode/);
  fails("just a string", "WRONG_TYPE", /must be a JSON object, got string/);
});

test("an absent body is an empty request", () => {
  assert.equal(strictFromJson(SemanticSearchRequestSchema, undefined).query, "");
});

test("a nested filter is checked field by field and named by its path", () => {
  const ok = strictFromJson(SemanticSearchRequestSchema, {
    query: "q",
    filter: { sources: ["reddit"], min_upvotes: 5, leadTypes: ["comparison"] },
  });
  assert.deepEqual(ok.filter?.sources, ["reddit"]);
  assert.equal(ok.filter?.minUpvotes, 5);
  assert.deepEqual(ok.filter?.leadTypes, ["comparison"]);
  fails(
    { query: "q", filter: { min_upvote: 1 } },
    "UNKNOWN_FIELD",
    /^unknown field "filter.min_upvote" \(did you mean "min_upvotes"\?\)/,
  );
  fails({ query: "q", filter: { min_upvotes: "5" } }, "WRONG_TYPE", /^filter.min_upvotes must be an integer/);
  fails({ query: "q", filter: { authors: ["a", 1] } }, "WRONG_TYPE", /^filter.authors\[1\] must be a string/);
  fails({ query: "q", filter: ["reddit"] }, "WRONG_TYPE", /^filter must be a JSON object, got array/);
});
