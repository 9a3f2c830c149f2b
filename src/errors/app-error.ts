/**
 * The one error type of the service. Every failure a client can see is an AppError with a code
 * from the closed table in error-table.ts; the table decides the Connect code, HTTP status and
 * stable reason, so REST, Connect and gRPC say the same thing about the same failure.
 */
import type { ErrorKind } from "./error-table.js";

/** Structured extra facts attached to an error (field name, limit, reset time, ...). */
export type ErrorMetadata = Record<string, string>;

/** A client-visible failure. `message` is shown to the client; `cause` never is. */
export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly metadata: ErrorMetadata = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
