/**
 * The one error type of the accounts module, for mistakes a caller can fix (unknown key id,
 * invalid plan, rotating a revoked key). The CLI prints the message; the portal maps the code to
 * its HTTP answer. Store failures stay plain errors: they are not the caller's to fix.
 */

/** What kind of mistake it was. */
export type AccountsErrorCode = "invalid_argument" | "not_found" | "failed_precondition";

/** A refused accounts operation; the message says what was wrong and how to fix it. */
export class AccountsError extends Error {
  override readonly name = "AccountsError";
  constructor(
    readonly code: AccountsErrorCode,
    message: string,
  ) {
    super(message);
  }
}
