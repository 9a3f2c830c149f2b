/**
 * Why a live-source request failed, as a closed set of kinds: the scheduler counts errors by
 * kind in its metrics and decides from the kind whether to retry the source soon or later.
 */

/** Every kind of source request failure. */
export const SOURCE_ERROR_KINDS = [
  "timeout",
  "network",
  "rate_limited",
  "server_error",
  "client_error",
  "bad_response",
  "budget_exhausted",
  "quota_exhausted",
  "settings",
  "internal",
] as const;
/** One of {@link SOURCE_ERROR_KINDS}. */
export type SourceErrorKind = (typeof SOURCE_ERROR_KINDS)[number];

/** A failed source request (after the retries the client allows). */
export class SourceRequestError extends Error {
  override readonly name = "SourceRequestError";
  constructor(
    readonly kind: SourceErrorKind,
    message: string,
    /** When the source may be asked again (epoch ms), when the server said so. */
    readonly retryAt?: number,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.status = options?.status;
  }
  /** The HTTP status of a client_error answer (404 for an item deleted since it was listed). */
  readonly status: number | undefined;
}

/** The kind of any error thrown by a poll ("internal" for one that is not about the source, such as a failed index write). */
export function errorKind(err: unknown): SourceErrorKind {
  if (err instanceof SourceRequestError) return err.kind;
  if (err instanceof Error && err.name === "AppError") return "settings";
  return "internal";
}
