/**
 * Password hashing with scrypt from node:crypto (memory-hard, no native dependency). The stored
 * form describes itself, `scrypt$N$r$p$<salt b64url>$<hash b64url>`, so the cost can be raised
 * later and old hashes still verify; `needsRehash` tells when one was made with other settings.
 * Hashing runs on libuv's thread pool (async scrypt), never on the event loop.
 */

import type { ScryptOptions } from "node:crypto";
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** scrypt cost settings. */
export interface ScryptCost {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/**
 * The cost for new hashes: N = 2^15, r = 8, p = 1 (32 MiB, OWASP's scrypt minimum is 2^17 with
 * r=8 p=1 at 128 MiB; 2^15 keeps a sign-in burst on a small shared machine from exhausting
 * memory) while a hash still takes a noticeable fraction of a second.
 */
export const DEFAULT_SCRYPT_COST: Readonly<ScryptCost> = Object.freeze({ N: 2 ** 15, r: 8, p: 1 });

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;
// Bounds on what a stored string may ask for, so a corrupt or hostile row cannot make one
// verification allocate gigabytes.
const MAX_N = 2 ** 20;
const MAX_RP = 64;

function derive(password: string, salt: Buffer, cost: ScryptCost, length: number): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node's default maxmem (32 MiB) is exactly 2^15 * 8 * 128
  // and refuses it, so the limit is set from the cost with room to spare.
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Hashes `password` with a fresh random salt. */
export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, cost, KEY_LENGTH);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

interface ParsedHash {
  cost: ScryptCost;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const m = FORMAT.exec(stored);
  if (m === null) return undefined;
  const cost = { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  const powerOfTwo = cost.N >= 2 && (cost.N & (cost.N - 1)) === 0;
  if (!powerOfTwo || cost.N > MAX_N || cost.r < 1 || cost.r > MAX_RP || cost.p < 1 || cost.p > MAX_RP) return undefined;
  const hash = Buffer.from(m[5] as string, "base64url");
  if (hash.length < 16) return undefined;
  return { cost, salt: Buffer.from(m[4] as string, "base64url"), hash };
}

/**
 * True when `password` matches `stored`. A malformed stored value never matches (and costs a
 * hash at the default settings all the same, so timing says nothing about it).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed === undefined) {
    await derive(password, randomBytes(SALT_LENGTH), DEFAULT_SCRYPT_COST, KEY_LENGTH);
    return false;
  }
  const actual = await derive(password, parsed.salt, parsed.cost, parsed.hash.length);
  return timingSafeEqual(actual, parsed.hash);
}

/** True when `stored` was made with settings other than `cost` (rehash on next sign-in). */
export function needsRehash(stored: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): boolean {
  const parsed = parseHash(stored);
  return parsed === undefined || parsed.cost.N !== cost.N || parsed.cost.r !== cost.r || parsed.cost.p !== cost.p;
}
