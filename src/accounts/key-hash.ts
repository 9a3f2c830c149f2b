/**
 * Hashing and comparing keys. A key carries ~190 random bits, so a plain SHA-256 is enough: no
 * salt or slow hash is needed against guessing, and a fast hash keeps authentication cheap on
 * every call. The comparison runs in constant time so response timing reveals nothing about how
 * much of a guessed key matched the stored hash.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** SHA-256 of the whole key, lowercase hex; the only form a key is stored in. */
export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Constant-time check that `presented` hashes to `storedHash` (hex). */
export function keyMatchesHash(presented: string, storedHash: string): boolean {
  const actual = createHash("sha256").update(presented, "utf8").digest();
  const expected = Buffer.from(storedHash, "hex");
  // Lengths differ only for a corrupt stored hash; timingSafeEqual would throw on it.
  if (expected.length !== actual.length) return false;
  return timingSafeEqual(actual, expected);
}
