/**
 * Key comparison is constant time. Timing is not asserted (the machine is shared and noisy);
 * instead the structure is: the stored form is a fixed-length SHA-256 digest, the comparison is
 * crypto.timingSafeEqual over two equal-length buffers, and no early-exit string comparison of
 * secrets or hashes exists on the authentication path.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { hashKey, keyMatchesHash } from "../../src/accounts/key-hash.js";

const KEY = "ts_live_AbCdEfGhIjKl_0123456789abcdefghijklmnopqrstuv";
const source = (rel: string): string => readFileSync(new URL(`../../src/${rel}`, import.meta.url), "utf8");

describe("key hashing and comparison", () => {
  it("stores a 32-byte SHA-256 digest as 64 hex characters, the same length for every key", () => {
    assert.equal(hashKey(KEY), createHash("sha256").update(KEY, "utf8").digest("hex"));
    for (const k of [KEY, "x", "y".repeat(500)]) assert.match(hashKey(k), /^[0-9a-f]{64}$/);
  });

  it("accepts exactly the key and refuses a difference in the first or the last character", () => {
    const stored = hashKey(KEY);
    assert.equal(keyMatchesHash(KEY, stored), true);
    assert.equal(keyMatchesHash(`X${KEY.slice(1)}`, stored), false);
    assert.equal(keyMatchesHash(`${KEY.slice(0, -1)}X`, stored), false);
    assert.equal(keyMatchesHash("", stored), false);
  });

  it("returns false, without throwing, for a corrupt stored hash of another length", () => {
    assert.equal(keyMatchesHash(KEY, "abcd"), false);
    assert.equal(keyMatchesHash(KEY, ""), false);
  });

  it("compares with crypto.timingSafeEqual over digests, never with ===/!== on secrets or hashes", () => {
    const code = source("accounts/key-hash.ts").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
    assert.match(code, /import \{[^}]*\btimingSafeEqual\b[^}]*\} from "node:crypto"/);
    assert.match(code, /return timingSafeEqual\(actual, expected\)/);
    // The only === / !== allowed is the length guard that timingSafeEqual itself requires.
    const comparisons = code.match(/[!=]==/g) ?? [];
    assert.deepEqual(comparisons, ["!=="], code);
    assert.match(code, /expected\.length !== actual\.length/);
  });

  it("the key service verifies secrets only through keyMatchesHash, also for unknown ids", () => {
    const code = source("accounts/key-service.ts");
    assert.match(code, /keyMatchesHash\(presented, record\?\.keyHash \?\? ABSENT_HASH\)/);
    assert.doesNotMatch(code, /keyHash\s*[!=]==|[!=]==\s*[\w.?]*keyHash/);
  });
});
