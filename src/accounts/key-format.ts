/**
 * What an API key looks like: `ts_live_<id>_<secret>`, with a 12-character base62 key id and a
 * 32-character base62 secret (about 190 bits from crypto.randomBytes). The prefix lets secret
 * scanners and people recognise a Threadsight key; the embedded id makes lookup one primary-key
 * read, so the secret itself is never searched for, only compared against one stored hash.
 */
import { randomBase62 } from "./random-id.js";

/** Every key starts with this. */
export const KEY_PREFIX = "ts_live_";
/** Length of the key id part. */
export const KEY_ID_LENGTH = 12;
/** Length of the secret part. */
export const KEY_SECRET_LENGTH = 32;
/** Length of a whole key. */
export const KEY_LENGTH = KEY_PREFIX.length + KEY_ID_LENGTH + 1 + KEY_SECRET_LENGTH;

const SHAPE = new RegExp(`^${KEY_PREFIX}([0-9A-Za-z]{${KEY_ID_LENGTH}})_[0-9A-Za-z]{${KEY_SECRET_LENGTH}}$`);
const ID_SHAPE = new RegExp(`^[0-9A-Za-z]{${KEY_ID_LENGTH}}$`);
// Four secret characters (24 bits) help tell two keys of one account apart; the remaining
// 28 characters still carry about 166 bits.
const SHOWN_SECRET_CHARS = 4;

/** A freshly generated key: its id and the full secret string shown to the user once. */
export interface GeneratedKey {
  id: string;
  key: string;
}

/** Generates a new key id and key. */
export function generateKey(): GeneratedKey {
  const id = randomBase62(KEY_ID_LENGTH);
  return { id, key: `${KEY_PREFIX}${id}_${randomBase62(KEY_SECRET_LENGTH)}` };
}

/** The key id embedded in a well-formed key, or undefined when the string is not one. */
export function parseKeyId(presented: string): string | undefined {
  // The length test rejects oversized junk before the regex looks at it.
  if (presented.length !== KEY_LENGTH) return undefined;
  return SHAPE.exec(presented)?.[1];
}

/** True when `id` has the shape of a key id (CLI and API inputs). */
export function isKeyId(id: string): boolean {
  return ID_SHAPE.test(id);
}

/** The part of a key that is safe to store and show: prefix, id and a few secret characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + KEY_ID_LENGTH + 1 + SHOWN_SECRET_CHARS);
}
