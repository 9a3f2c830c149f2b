/**
 * Error responses in the document, from the error table: one `ErrorBody` schema listing every
 * reason, and one response per HTTP status whose schema narrows `code` and `reason` to the rows
 * of that status. The body is the one envelope.ts writes:
 * `{"success": false, "error": {code, reason, message, request_id}}`.
 */
import { STATUS_CODES } from "node:http";
import type { ErrorRow } from "../errors/error-table.js";
import { connectCodeName, ERROR_TABLE } from "../errors/error-table.js";
import { responseHeaders } from "./header-docs.js";
import type { JsonSchema } from "./json-schema.js";

/**
 * Statuses an existing operation does not answer: 405 is for another method on a known path
 * (outside any operation), 499 is logged when the client has gone and never reaches it. They
 * stay documented as components. 404 is an operation's too: a lookup of an unknown resource (a
 * monitor id) answers it, as does an unknown path.
 */
const NOT_FROM_AN_OPERATION: ReadonlySet<number> = new Set([405, 499]);

/** Statuses only a streaming route answers: 406 when `Accept` allows none of its formats. */
const STREAMING_ONLY: ReadonlySet<number> = new Set([406]);

const ROWS: readonly ErrorRow[] = Object.values(ERROR_TABLE);

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** Every HTTP status of the error table, ascending. */
export function errorStatuses(): number[] {
  return unique(ROWS.map((r) => r.http)).sort((a, b) => a - b);
}

/** The statuses an operation may answer with, ascending; a unary one never negotiates a format. */
export function operationErrorStatuses(streaming = false): number[] {
  return errorStatuses().filter((s) => !NOT_FROM_AN_OPERATION.has(s) && (streaming || !STREAMING_ONLY.has(s)));
}

/** Name of the response component of a status. */
export function errorResponseName(status: number): string {
  return `Error${status}`;
}

function errorBody(rows: readonly ErrorRow[]): JsonSchema {
  return {
    type: "object",
    properties: {
      success: { type: "boolean", const: false },
      error: {
        type: "object",
        properties: {
          code: {
            description: "The Connect/gRPC code name, as gRPC clients see it.",
            type: "string",
            enum: unique(rows.map((r) => connectCodeName(r.code))).sort(),
          },
          reason: {
            description: "Stable machine-readable reason; branch on this.",
            type: "string",
            enum: unique(rows.map((r) => r.reason)).sort(),
          },
          message: {
            description: "What was wrong and how to fix it; 5xx messages carry only the request id.",
            type: "string",
            minLength: 1,
          },
          request_id: {
            description: "Identifies this call in the server's logs (also the X-Request-Id header).",
            type: "string",
            minLength: 1,
          },
        },
        required: ["code", "reason", "message", "request_id"],
        additionalProperties: false,
      },
    },
    required: ["success", "error"],
    additionalProperties: false,
  };
}

/** components.schemas.ErrorBody: the error envelope with every reason. */
export function errorBodySchema(): JsonSchema {
  return { description: "The body of every error response.", ...errorBody(ROWS) };
}

/** components.responses: one error response per status. */
export function errorResponseComponents(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const status of errorStatuses()) {
    const rows = ROWS.filter((r) => r.http === status);
    const reasons = unique(rows.map((r) => r.reason)).sort();
    out[errorResponseName(status)] = {
      description: `${STATUS_CODES[status] ?? "Client Closed Request"}: ${reasons.join(", ")}.`,
      headers: responseHeaders({ metered: true, success: false, status }),
      content: { "application/json": { schema: errorBody(rows) } },
    };
  }
  return out;
}
