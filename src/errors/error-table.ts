/**
 * The closed set of application errors. Each kind maps exhaustively (the Record type makes the
 * compiler refuse a kind without a row) to a Connect code, an HTTP status and a stable reason.
 * Reasons are a public contract: clients branch on them, so they never change meaning.
 */
import { Code } from "@connectrpc/connect";

/** Every error kind the service can answer with. */
export type ErrorKind =
  | "MALFORMED_JSON"
  | "UNKNOWN_FIELD"
  | "WRONG_TYPE"
  | "MISSING_FIELD"
  | "INVALID_ARGUMENT"
  | "OUT_OF_RANGE"
  | "INVALID_DATE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "NOT_ACCEPTABLE"
  | "PAYLOAD_TOO_LARGE"
  | "NOT_FOUND"
  | "TOPICS_NOT_BUILT"
  | "METHOD_NOT_ALLOWED"
  | "UNAUTHENTICATED"
  | "KEY_REVOKED"
  | "KEY_EXPIRED"
  | "PLAN_NO_API_ACCESS"
  | "PERMISSION_DENIED"
  | "RATE_LIMITED"
  | "QUOTA_EXCEEDED"
  | "AUTH_RATE_LIMITED"
  | "UNIMPLEMENTED"
  | "UNAVAILABLE"
  | "DEADLINE_EXCEEDED"
  | "CANCELED"
  | "INTERNAL";

/** How one error kind appears on each protocol. */
export interface ErrorRow {
  code: Code;
  http: number;
  /** UPPER_SNAKE reason carried in the REST body and in google.rpc.ErrorInfo. */
  reason: string;
}

/** The table. REST status and gRPC code for the same kind always agree. */
export const ERROR_TABLE: Readonly<Record<ErrorKind, ErrorRow>> = Object.freeze({
  MALFORMED_JSON: { code: Code.InvalidArgument, http: 400, reason: "MALFORMED_JSON" },
  UNKNOWN_FIELD: { code: Code.InvalidArgument, http: 400, reason: "UNKNOWN_FIELD" },
  WRONG_TYPE: { code: Code.InvalidArgument, http: 400, reason: "WRONG_TYPE" },
  MISSING_FIELD: { code: Code.InvalidArgument, http: 400, reason: "MISSING_FIELD" },
  INVALID_ARGUMENT: { code: Code.InvalidArgument, http: 400, reason: "INVALID_ARGUMENT" },
  OUT_OF_RANGE: { code: Code.InvalidArgument, http: 400, reason: "OUT_OF_RANGE" },
  INVALID_DATE: { code: Code.InvalidArgument, http: 400, reason: "INVALID_DATE" },
  UNSUPPORTED_MEDIA_TYPE: { code: Code.InvalidArgument, http: 415, reason: "UNSUPPORTED_MEDIA_TYPE" },
  NOT_ACCEPTABLE: { code: Code.InvalidArgument, http: 406, reason: "NOT_ACCEPTABLE" },
  PAYLOAD_TOO_LARGE: { code: Code.ResourceExhausted, http: 413, reason: "PAYLOAD_TOO_LARGE" },
  NOT_FOUND: { code: Code.NotFound, http: 404, reason: "NOT_FOUND" },
  // The index has no topic model yet: the request is valid but cannot be answered until one is
  // built, so it is a state conflict (409) rather than a bad request, and retrying alone won't help.
  TOPICS_NOT_BUILT: { code: Code.FailedPrecondition, http: 409, reason: "TOPICS_NOT_BUILT" },
  METHOD_NOT_ALLOWED: { code: Code.Unimplemented, http: 405, reason: "METHOD_NOT_ALLOWED" },
  UNAUTHENTICATED: { code: Code.Unauthenticated, http: 401, reason: "INVALID_API_KEY" },
  KEY_REVOKED: { code: Code.Unauthenticated, http: 401, reason: "API_KEY_REVOKED" },
  KEY_EXPIRED: { code: Code.Unauthenticated, http: 401, reason: "API_KEY_EXPIRED" },
  PLAN_NO_API_ACCESS: { code: Code.PermissionDenied, http: 403, reason: "PLAN_NO_API_ACCESS" },
  PERMISSION_DENIED: { code: Code.PermissionDenied, http: 403, reason: "PERMISSION_DENIED" },
  RATE_LIMITED: { code: Code.ResourceExhausted, http: 429, reason: "RATE_LIMITED" },
  QUOTA_EXCEEDED: { code: Code.ResourceExhausted, http: 429, reason: "QUOTA_EXCEEDED" },
  AUTH_RATE_LIMITED: { code: Code.ResourceExhausted, http: 429, reason: "AUTH_RATE_LIMITED" },
  UNIMPLEMENTED: { code: Code.Unimplemented, http: 501, reason: "UNIMPLEMENTED" },
  UNAVAILABLE: { code: Code.Unavailable, http: 503, reason: "BACKEND_UNAVAILABLE" },
  DEADLINE_EXCEEDED: { code: Code.DeadlineExceeded, http: 504, reason: "DEADLINE_EXCEEDED" },
  CANCELED: { code: Code.Canceled, http: 499, reason: "CANCELED" },
  INTERNAL: { code: Code.Internal, http: 500, reason: "INTERNAL" },
});

/** Connect code names as they appear in REST bodies ("invalid_argument"). */
export function connectCodeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}
