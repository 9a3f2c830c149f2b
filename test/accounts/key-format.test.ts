/**
 * Key shape, entropy and hashing: the parts of key handling that need no store.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import { describe, it, mock } from "node:test";
import {
  displayPrefix,
  generateKey,
  isKeyId,
  KEY_LENGTH,
  KEY_PREFIX,
  KEY_SECRET_LENGTH,
  parseKeyId,
} from "../../src/accounts/key-format.js";
import { hashKey, keyMatchesHash } from "../../src/accounts/key-hash.js";
import { BITS_PER_CHAR, newAccountId, randomBase62 } from "../../src/accounts/random-id.js";

describe("key format", () => {
  it("generates prefixed keys that embed their id and carry at least 128 secret bits", () => {
    assert.ok(KEY_SECRET_LENGTH * BITS_PER_CHAR >= 128, `secret has ${KEY_SECRET_LENGTH * BITS_PER_CHAR} bits`);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { id, key } = generateKey();
      assert.match(key, /^ts_live_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
      assert.equal(key.length, KEY_LENGTH);
      assert.ok(key.startsWith(`${KEY_PREFIX}${id}_`));
      assert.equal(parseKeyId(key), id);
      assert.ok(isKeyId(id));
      seen.add(key);
    }
    assert.equal(seen.size, 200);
  });

  it("shows only the prefix, the id and four secret characters", () => {
    const { id, key } = generateKey();
    const shown = displayPrefix(key);
    assert.equal(shown, key.slice(0, KEY_PREFIX.length + 12 + 1 + 4));
    assert.ok(shown.startsWith(`ts_live_${id}_`));
    assert.ok(KEY_SECRET_LENGTH - 4 >= 22, "what stays hidden must still exceed 128 bits");
  });

  it("rejects anything that is not exactly a key", () => {
    const { key } = generateKey();
    const bad = [
      "",
      "ts_live_",
      key.slice(0, -1),
      key + "x",
      key.replace("ts_live_", "ts_test_"),
      key.replace("ts_live_", "TS_LIVE_"),
      key.slice(0, 20) + "-" + key.slice(21),
      key.slice(0, 8) + "abc" + key.slice(11).replace("_", "a"),
      ` ${key.slice(1)}`,
      `${key.slice(0, -1)}\n`,
      "Bearer " + key,
      "x".repeat(10_000),
    ];
    for (const candidate of bad) assert.equal(parseKeyId(candidate), undefined, JSON.stringify(candidate));
    assert.equal(isKeyId("short"), false);
    assert.equal(isKeyId("abcdefghijk!"), false);
  });

  it("draws base62 characters uniformly", () => {
    const sample = randomBase62(62 * 2000);
    const counts = new Map<string, number>();
    for (const c of sample) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // Expected 2000 each (sd about 44); a modulo-biased generator puts the first eight near 2420.
    for (const [c, n] of counts) assert.ok(n > 1750 && n < 2250, `${c} appeared ${n} times`);
    assert.match(newAccountId(), /^acct_[0-9A-Za-z]{16}$/);
  });
});

describe("key hashing", () => {
  it("stores SHA-256 hex and matches only the exact key", () => {
    const { key } = generateKey();
    const hash = hashKey(key);
    assert.equal(hash, crypto.createHash("sha256").update(key).digest("hex"));
    assert.ok(keyMatchesHash(key, hash));
    assert.equal(keyMatchesHash(key.slice(0, -1) + (key.endsWith("a") ? "b" : "a"), hash), false);
    assert.equal(keyMatchesHash(key, "00"), false, "a corrupt stored hash is a mismatch, not a crash");
  });

  it("compares through crypto.timingSafeEqual on 32-byte digests", () => {
    const spy = mock.method(crypto, "timingSafeEqual");
    // Named imports of builtins are snapshots; this pushes the spy into them.
    syncBuiltinESMExports();
    try {
      const { key } = generateKey();
      const other = generateKey().key;
      assert.equal(keyMatchesHash(other, hashKey(key)), false);
      assert.equal(keyMatchesHash(key, hashKey(key)), true);
      assert.equal(spy.mock.callCount(), 2);
      for (const call of spy.mock.calls) {
        const [a, b] = call.arguments as unknown as [Buffer, Buffer];
        assert.equal(a.length, 32);
        assert.equal(b.length, 32);
      }
    } finally {
      spy.mock.restore();
      syncBuiltinESMExports();
    }
  });
});
