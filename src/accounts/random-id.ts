/**
 * Uniform random base62 strings from crypto.randomBytes: the alphabet of key ids, key secrets
 * and account ids. Base62 keeps keys one double-click selectable word, free of URL escaping.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// 248 = 4 * 62: bytes at or above it are dropped, so every character is exactly equally likely
// (a plain `byte % 62` would favour the first eight characters).
const LIMIT = 248;

/** Bits of entropy in one base62 character. */
export const BITS_PER_CHAR = Math.log2(62);

/** A string of `length` independent, uniformly chosen base62 characters. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    // Ask for a little more than needed: about 3% of bytes are rejected.
    for (const byte of randomBytes(length - out.length + 8)) {
      if (byte < LIMIT) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new account id, `acct_` and 16 base62 characters. */
export function newAccountId(): string {
  return `acct_${randomBase62(16)}`;
}
