/**
 * Turns anything thrown below the Connect edge into a ConnectError built from the error table:
 * the table's code, the client-safe message, and a google.rpc.ErrorInfo detail carrying the
 * stable reason. Unknown errors become a generic INTERNAL whose message reveals nothing; the
 * original stays in `cause` for the log. Idempotent: a ConnectError passes through unchanged.
 */
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { AppError } from "./app-error.js";
import type { ErrorKind } from "./error-table.js";
import { ERROR_TABLE } from "./error-table.js";

/** One detail of a ConnectError as its constructor takes it. */
type OutgoingDetail = NonNullable<ConstructorParameters<typeof ConnectError>[3]>[number];

/** Domain of every ErrorInfo we send. */
export const ERROR_DOMAIN = "threadsight.v1";

/** Errors from lower layers that map to a kind by their class name (no import needed). */
const KIND_BY_ERROR_NAME: Readonly<Record<string, ErrorKind>> = {
  IndexUnavailableError: "UNAVAILABLE",
  StoreUnavailableError: "UNAVAILABLE",
  EmbedderUnavailableError: "UNAVAILABLE",
  TimeoutError: "DEADLINE_EXCEEDED",
  AbortError: "CANCELED",
};

/** Builds the ConnectError for an AppError (or a kind + message). */
export function appErrorToConnect(err: AppError): ConnectError {
  const row = ERROR_TABLE[err.kind];
  const details: OutgoingDetail[] = [
    {
      desc: ErrorInfoSchema,
      value: create(ErrorInfoSchema, { reason: row.reason, domain: ERROR_DOMAIN, metadata: err.metadata }),
    },
  ];
  // gRPC tooling (AIP-193 clients, status printers) looks for the offending field in a
  // google.rpc.BadRequest; ErrorInfo's metadata names it only by our own convention.
  const field = err.metadata.field;
  if (row.code === Code.InvalidArgument && field !== undefined && field !== "") {
    details.push({
      desc: BadRequestSchema,
      value: create(BadRequestSchema, { fieldViolations: [{ field, description: err.message }] }),
    });
  }
  return new ConnectError(err.message, row.code, undefined, details, err);
}

/** The client-safe message for a kind that carries no detail of its own. */
const GENERIC_MESSAGE: Partial<Record<ErrorKind, string>> = {
  UNAVAILABLE: "a backend the service depends on is unavailable; retry shortly",
  DEADLINE_EXCEEDED: "the call did not finish within its deadline",
  CANCELED: "the call was canceled by the client",
  INTERNAL: "internal error; the request id identifies it in our logs",
};

/** Converts any thrown value into a ConnectError following the error table. */
export function toConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) {
    // Connect's own deadline handling aborts with DeadlineExceeded; keep those as they are.
    if (err.code !== Code.Unknown) return err;
  }
  if (err instanceof AppError) return appErrorToConnect(err);
  const name = err instanceof Error ? err.name : "";
  const kind = KIND_BY_ERROR_NAME[name] ?? "INTERNAL";
  return appErrorToConnect(new AppError(kind, GENERIC_MESSAGE[kind] ?? "internal error", {}, { cause: err }));
}

/** Reads the stable reason back from a ConnectError (the ErrorInfo detail), or "" if none. */
export function reasonOf(err: ConnectError): string {
  const info = err.findDetails(ErrorInfoSchema)[0];
  return info?.reason ?? "";
}
