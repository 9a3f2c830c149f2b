/**
 * Session and CSRF tokens: 32 random bytes in base64url (43 characters, cookie- and form-safe).
 * Only the SHA-256 of a session token is stored, so a leaked database row cannot be replayed as
 * a cookie; the token carries 256 random bits, so a fast hash suffices (no salt, no slow hash).
 */
import { createHash, randomBytes } from "node:crypto";

const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A new random token. */
export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString("base64url");
}

/** True when `value` has the exact shape newToken produces; anything else skips the database. */
export function isTokenShaped(value: string): boolean {
  return value.length === 43 && TOKEN_SHAPE.test(value);
}

/** SHA-256 of a token, lowercase hex: the form sessions are stored and looked up by. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
