/**
 * API-key authentication for every threadsight.v1 service. Runs inside the observe interceptor
 * and before limits, on every protocol. A refused call carries `WWW-Authenticate: Bearer` and
 * counts against the caller's address and the key id it presented, so guessing a key is throttled
 * (AUTH_RATE_LIMITED) without locking out other keys used from the same address.
 */

import type { ConnectError, Interceptor } from "@connectrpc/connect";
import type { AuthFailure, AuthResult } from "../accounts/caller.js";
import { parseKeyId } from "../accounts/key-format.js";
import { CALLER, PEER_HEADER } from "../auth/context.js";
import { AppError } from "../errors/app-error.js";
import type { ErrorKind } from "../errors/error-table.js";
import { toConnectError } from "../errors/to-connect.js";

/** What the interceptor needs from the key service. */
export interface Authenticator {
  authenticate(presentedKey: string | undefined): Promise<AuthResult>;
}

/**
 * Throttles failed authentication per client address and presented key id (undefined when the
 * presentation has none). `check` throws (an AppError or a ConnectError with Retry-After) when
 * the pair is blocked; `fail` records one failure.
 */
export interface AuthFailureGuard {
  check(address: string, keyId?: string): Promise<void>;
  fail(address: string, keyId?: string): Promise<void>;
}

/** Services whose calls need a key. */
const PROTECTED_PACKAGE = "threadsight.v1.";

/** A key we did not issue, whatever its shape: one message, so a reply never hints whether a key exists. */
const NOT_ISSUED = {
  kind: "UNAUTHENTICATED",
  message: "invalid API key: this is not a key we issued; check the key, or create one in the portal",
} as const;

/** The header itself is not `Bearer <token>` (another scheme, or a token with spaces). */
const MALFORMED_HEADER = {
  kind: "UNAUTHENTICATED",
  message: 'malformed Authorization header: expected "Bearer <API key>"',
} as const;

// A wrong-length or wrong-prefix key ("malformed" to the key service) reads as one we never issued.
const FAILURES: Readonly<Record<AuthFailure, { kind: ErrorKind; message: string }>> = {
  missing: { kind: "UNAUTHENTICATED", message: "missing API key: send the header Authorization: Bearer <API key>" },
  malformed: NOT_ISSUED,
  unknown: NOT_ISSUED,
  revoked: { kind: "KEY_REVOKED", message: "this API key has been revoked: create a new key in the dashboard" },
  expired: { kind: "KEY_EXPIRED", message: "this API key was rotated and its grace period has ended: use the new key" },
};

/** Extracts the token of a Bearer Authorization header; "" for another scheme, undefined when absent. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null || header.trim() === "") return undefined;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? "";
}

/** Creates the auth interceptor. */
export function authInterceptor(authenticator: Authenticator, guard?: AuthFailureGuard): Interceptor {
  return (next) => async (req) => {
    if (!req.service.typeName.startsWith(PROTECTED_PACKAGE)) return next(req);
    const peer = req.header.get(PEER_HEADER) ?? "";

    const token = bearerToken(req.header.get("authorization"));
    const keyId = token === undefined ? undefined : parseKeyId(token);
    if (guard !== undefined) await guard.check(peer, keyId);
    const result: AuthResult =
      token === "" ? { ok: false, failure: "malformed" } : await authenticator.authenticate(token);
    if (!result.ok) {
      if (guard !== undefined) await guard.fail(peer, keyId);
      const { kind, message } = token === "" ? MALFORMED_HEADER : FAILURES[result.failure];
      const err: ConnectError = toConnectError(new AppError(kind, message));
      err.metadata.set(
        "www-authenticate",
        result.failure === "missing"
          ? 'Bearer realm="threadsight"'
          : 'Bearer realm="threadsight", error="invalid_token"',
      );
      throw err;
    }
    req.contextValues.set(CALLER, result.caller);
    return next(req);
  };
}
