/**
 * The REST envelope: `{"success": true, "data": ...}` on success and
 * `{"success": false, "error": {code, reason, message, request_id}}` on failure, with the HTTP
 * status taken from the error table by the error's stable reason.
 */
import { Code, type ConnectError } from "@connectrpc/connect";
import { connectCodeName, ERROR_TABLE } from "../errors/error-table.js";
import { reasonOf, toConnectError } from "../errors/to-connect.js";

/** Body of a REST error response. */
export interface ErrorBody {
  success: false;
  error: { code: string; reason: string; message: string; request_id: string };
}

const STATUS_BY_REASON: ReadonlyMap<string, number> = new Map(
  Object.values(ERROR_TABLE).map((row) => [row.reason, row.http]),
);

/** Status for a Connect code when an error carries no reason of ours (e.g. Connect's own). */
const STATUS_BY_CODE: Partial<Record<Code, number>> = {
  [Code.Canceled]: 499,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Unavailable]: 503,
  [Code.Unauthenticated]: 401,
};

/** Response headers of an RPC that REST clients must also see. */
const FORWARDED_HEADER = /^(x-ratelimit-|x-quota-|ratelimit|retry-after$|www-authenticate$)/;

/** Copies the forwardable headers of an RPC response (or error metadata) into `target`. */
export function forwardHeaders(source: Headers, target: (name: string, value: string) => void): void {
  source.forEach((value, name) => {
    if (FORWARDED_HEADER.test(name)) target(name, value);
  });
}

/** HTTP status and body for any error. */
export function errorResponse(
  thrown: unknown,
  requestId: string,
): { status: number; body: ErrorBody; error: ConnectError } {
  const error = toConnectError(thrown);
  const reason =
    reasonOf(error) ||
    (error.code === Code.Internal || error.code === Code.Unknown
      ? "INTERNAL"
      : connectCodeName(error.code).toUpperCase());
  const status = STATUS_BY_REASON.get(reason) ?? STATUS_BY_CODE[error.code] ?? 500;
  const message =
    status >= 500 && reason === "INTERNAL" ? `internal error (request id ${requestId})` : error.rawMessage;
  return {
    status,
    error,
    body: { success: false, error: { code: connectCodeName(error.code), reason, message, request_id: requestId } },
  };
}
