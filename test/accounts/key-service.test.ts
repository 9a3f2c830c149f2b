/**
 * The key service over a real SQLite store: creation, authentication outcomes, revocation,
 * rotation with its grace period (an injected clock crosses it without sleeping), the
 * authentication cache and input checks.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, beforeEach, describe, it } from "node:test";
import { AccountsError } from "../../src/accounts/accounts-error.js";
import { generateKey } from "../../src/accounts/key-format.js";
import { hashKey } from "../../src/accounts/key-hash.js";
import type { KeyService, KeyServiceOptions } from "../../src/accounts/key-service.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import type { AccountsStore } from "../../src/accounts/store.js";
import { StoreUnavailableError } from "../../src/accounts/store-unavailable.js";

const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-keys-"));
after(() => rmSync(root, { recursive: true, force: true }));

const START = Date.parse("2026-05-01T12:00:00Z");
const GRACE_S = 3600;

/** The store with getKey replaced: lets tests count or fail the hot-path read. */
function withGetKey(store: AccountsStore, getKey: AccountsStore["getKey"]): AccountsStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "getKey") return getKey;
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Wraps a store so tests can see how often the hot path reaches the database. */
function counting(store: AccountsStore): { store: AccountsStore; getKeyCalls: () => number } {
  let calls = 0;
  const wrapped = withGetKey(store, (id) => {
    calls += 1;
    return store.getKey(id);
  });
  return { store: wrapped, getKeyCalls: () => calls };
}

function isAccountsError(code: string, pattern: RegExp) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof AccountsError, `expected AccountsError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.match(err.message, pattern);
    return true;
  };
}

describe("key service", () => {
  let dataDir: string;
  let raw: AccountsStore;
  let store: AccountsStore;
  let getKeyCalls: () => number;
  let nowMs: number;
  let service: KeyService;
  let n = 0;

  const make = (extra: Partial<KeyServiceOptions> = {}): KeyService =>
    createKeyService({ store, rotationGraceSeconds: GRACE_S, now: () => new Date(nowMs), ...extra });

  beforeEach(async () => {
    dataDir = path.join(root, `case-${++n}`);
    raw = await openAccountsStore({ dataDir });
    ({ store, getKeyCalls } = counting(raw));
    nowMs = START;
    service = make();
  });
  afterEach(() => raw.close());

  it("creates a key shown once, stored only as its hash, and authenticates it", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: " ci runner " });
    assert.match(created.key, /^ts_live_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    assert.equal(created.info.name, "ci runner");
    assert.equal(created.info.plan, "pro");
    assert.equal(created.account.name, "acme");
    assert.equal(created.info.accountId, created.account.id);
    assert.deepEqual(created.info.createdAt, new Date(START));
    const record = await raw.getKey(created.info.id);
    assert.equal(record?.keyHash, hashKey(created.key));
    assert.ok(created.key.startsWith(record?.displayPrefix ?? "?"));

    assert.deepEqual(await service.authenticate(created.key), {
      ok: true,
      caller: { keyId: created.info.id, accountId: created.account.id, plan: "pro", overrides: {} },
    });

    // The secret part must not be anywhere on disk, in any file of the store.
    await raw.close();
    const secret = created.key.slice(-32);
    for (const file of readdirSync(dataDir)) {
      assert.equal(readFileSync(path.join(dataDir, file)).includes(secret), false, `${file} holds the secret`);
    }
    raw = await openAccountsStore({ dataDir });
  });

  it("reuses an account by name, takes one by id, and refuses ambiguous or unknown ones", async () => {
    // Keys list by creation time; distinct times make the expected order unambiguous.
    const a = await service.createKey({ accountName: "acme", plan: "free", name: "one" });
    nowMs += 1;
    const b = await service.createKey({ accountName: "acme", name: "two" });
    assert.equal(b.account.id, a.account.id);
    nowMs += 1;
    const c = await service.createKey({ accountId: a.account.id, plan: "free", name: "three" });
    assert.equal(c.account.id, a.account.id);
    assert.deepEqual(
      (await service.listKeys({ accountId: a.account.id })).map((k) => k.name),
      ["one", "two", "three"],
    );
    await assert.rejects(
      service.createKey({ accountId: "acct_nope", plan: "free", name: "x" }),
      isAccountsError("not_found", /acct_nope/),
    );
    await raw.createAccount({ id: "acct_twin", name: "acme", createdAt: new Date(START + 1) });
    await assert.rejects(
      service.createKey({ accountName: "acme", plan: "free", name: "x" }),
      isAccountsError("invalid_argument", /2 accounts are named "acme"/),
    );
    await assert.rejects(
      service.createKey({ plan: "free", name: "x" }),
      isAccountsError("invalid_argument", /accountId or accountName/),
    );
  });

  it("never addresses a portal-made account by name, and issues to one by id only once its email is verified", async () => {
    const squatter = await raw.createAccount({
      id: "acct_squat",
      name: "acme-corp",
      email: "s@example.com",
      origin: "portal",
      createdAt: new Date(START),
    });
    await assert.rejects(
      service.createKey({ accountName: "acme-corp", plan: "enterprise", name: "prod" }),
      isAccountsError(
        "invalid_argument",
        /the account named "acme-corp" was made by a portal sign-up: acct_squat \(portal sign-up\)/,
      ),
    );
    await assert.rejects(
      service.createKey({ accountId: squatter.id, plan: "enterprise", name: "prod" }),
      isAccountsError(
        "failed_precondition",
        /acct_squat was made by a portal sign-up and its email s@example.com is not verified/,
      ),
    );
    // The account's owner (the portal, signed in) may make its own keys before verifying.
    const own = await service.createKey({ accountId: squatter.id, plan: "free", name: "mine", issuedBy: "owner" });
    assert.equal(own.account.id, squatter.id);
    await raw.createEmailVerification({
      tokenHash: "e5".repeat(32),
      accountId: squatter.id,
      createdAt: new Date(START),
      expiresAt: new Date(START + 60_000),
    });
    assert.equal(await raw.consumeEmailVerification("e5".repeat(32), new Date(START)), squatter.id);
    const issued = await service.createKey({ accountId: squatter.id, plan: "free", name: "issued" });
    assert.equal(issued.account.id, squatter.id);
    // Verified or not, a name someone signed up with still never selects the account.
    await assert.rejects(
      service.createKey({ accountName: "acme-corp", plan: "pro", name: "x" }),
      isAccountsError("invalid_argument", /portal sign-up/),
    );
    assert.deepEqual(
      (await raw.findAccountsByName("acme-corp")).map((a) => a.id),
      ["acct_squat"],
      "no account was made by the refused names",
    );
  });

  it("validates plan and name before writing anything", async () => {
    await assert.rejects(
      service.createKey({ accountName: "acme", plan: "gold", name: "x" }),
      isAccountsError("invalid_argument", /plan must be one of free, lite, starter, pro, enterprise, got "gold"/),
    );
    await assert.rejects(
      service.createKey({ accountName: "acme", plan: "pro", name: "   " }),
      isAccountsError("invalid_argument", /name must not be blank/),
    );
    await assert.rejects(
      service.createKey({ accountName: "acme", plan: "pro", name: "a\u0007b" }),
      isAccountsError("invalid_argument", /control/),
    );
    await assert.rejects(
      service.createKey({ accountName: "acme", plan: "pro", name: "x".repeat(101) }),
      isAccountsError("invalid_argument", /at most 100/),
    );
    assert.deepEqual(await raw.listAccounts(), []);
  });

  it("says missing, malformed and unknown, and never reads the store for a malformed key", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: "k" });
    assert.deepEqual(await service.authenticate(undefined), { ok: false, failure: "missing" });
    assert.deepEqual(await service.authenticate(""), { ok: false, failure: "missing" });
    const before = getKeyCalls();
    for (const bad of [
      "nope",
      `Bearer ${created.key}`,
      created.key + " ",
      created.key.slice(0, -1),
      created.key.replace("live", "test"),
    ]) {
      assert.deepEqual(await service.authenticate(bad), { ok: false, failure: "malformed" }, bad);
    }
    assert.equal(getKeyCalls(), before, "malformed keys must not reach the store");

    // Well-formed but never issued.
    assert.deepEqual(await service.authenticate(generateKey().key), { ok: false, failure: "unknown" });
    // The real key id with a wrong secret: the hash comparison refuses it.
    const last = created.key.at(-1) === "a" ? "b" : "a";
    const forged = created.key.slice(0, -1) + last;
    assert.deepEqual(await service.authenticate(forged), { ok: false, failure: "unknown" });
  });

  it("refuses a revoked key at once in this process, but only to holders of the secret", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: "k" });
    assert.equal((await service.authenticate(created.key)).ok, true);
    const revoked = await service.revokeKey(created.info.id);
    assert.deepEqual(revoked.revokedAt, new Date(START));
    assert.deepEqual(await service.authenticate(created.key), { ok: false, failure: "revoked" });
    const forged = created.key.slice(0, -1) + (created.key.at(-1) === "a" ? "b" : "a");
    assert.deepEqual(await service.authenticate(forged), { ok: false, failure: "unknown" });
    await assert.rejects(service.revokeKey("doesNotExist"), isAccountsError("not_found", /doesNotExist/));
    await assert.rejects(service.revokeKey("x'; DROP TABLE"), isAccountsError("not_found", /no key/));
  });

  it("rotates: the new key works, the old one until the grace period ends, then is expired", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "enterprise", name: "prod" });
    await raw.setOverrides(created.info.id, { ratePerMinute: 5000 });
    nowMs = START + 10_000;
    const rotated = await service.rotateKey(created.info.id);
    assert.notEqual(rotated.key, created.key);
    assert.equal(rotated.info.name, "prod");
    assert.equal(rotated.info.plan, "enterprise");
    assert.deepEqual(rotated.info.overrides, { ratePerMinute: 5000 });
    assert.equal(rotated.oldKey.id, created.info.id);
    assert.equal(rotated.oldKey.rotatedTo, rotated.info.id);
    assert.deepEqual(rotated.oldKey.expiresAt, new Date(START + 10_000 + GRACE_S * 1000));

    const newCaller = await service.authenticate(rotated.key);
    assert.ok(newCaller.ok);
    assert.equal(newCaller.caller.keyId, rotated.info.id);
    assert.deepEqual(newCaller.caller.overrides, { ratePerMinute: 5000 });

    nowMs = START + 10_000 + GRACE_S * 1000 - 1;
    assert.equal((await service.authenticate(created.key)).ok, true, "old key works during the grace period");
    nowMs += 1;
    assert.deepEqual(await service.authenticate(created.key), { ok: false, failure: "expired" });
    assert.equal((await service.authenticate(rotated.key)).ok, true);
  });

  it("refuses to rotate a key twice, a revoked key or an unknown one", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: "k" });
    const rotated = await service.rotateKey(created.info.id);
    await assert.rejects(
      service.rotateKey(created.info.id),
      isAccountsError("failed_precondition", new RegExp(`already rotated to "${rotated.info.id}"`)),
    );
    await service.revokeKey(rotated.info.id);
    await assert.rejects(service.rotateKey(rotated.info.id), isAccountsError("failed_precondition", /revoked/));
    await assert.rejects(service.rotateKey("unknownKeyId"), isAccountsError("not_found", /unknownKeyId/));
    assert.equal((await service.listKeys()).length, 2, "refused rotations create no keys");
  });

  it("with grace 0 the old key expires at the moment of rotation", async () => {
    service = make({ rotationGraceSeconds: 0 });
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: "k" });
    const rotated = await service.rotateKey(created.info.id);
    assert.deepEqual(await service.authenticate(created.key), { ok: false, failure: "expired" });
    assert.equal((await service.authenticate(rotated.key)).ok, true);
  });

  it("caches lookups for the TTL: one read per burst; other processes' revocations show after it", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: "k" });
    const server = make({ cacheTtlMs: 5_000 });
    const before = getKeyCalls();
    const results = await Promise.all(Array.from({ length: 20 }, () => server.authenticate(created.key)));
    assert.ok(results.every((r) => r.ok));
    assert.equal(getKeyCalls() - before, 1, "a burst of calls with one key costs one read");

    // Another process (here: another service instance, e.g. the CLI) revokes the key.
    await service.revokeKey(created.info.id);
    nowMs = START + 4_999;
    assert.equal((await server.authenticate(created.key)).ok, true, "within the TTL the cached record is used");
    nowMs = START + 5_000;
    assert.deepEqual(await server.authenticate(created.key), { ok: false, failure: "revoked" });

    const uncached = make({ cacheTtlMs: 0 });
    const again = await service.createKey({ accountName: "acme", plan: "pro", name: "k2" });
    const calls = getKeyCalls();
    await uncached.authenticate(again.key);
    await uncached.authenticate(again.key);
    assert.equal(getKeyCalls() - calls, 2);
  });

  it("does not remember a failed lookup", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: "k" });
    let failNext = true;
    const flaky = withGetKey(raw, async (id) => {
      if (failNext) {
        failNext = false;
        throw new Error("database unavailable");
      }
      return raw.getKey(id);
    });
    const server = createKeyService({ store: flaky, now: () => new Date(nowMs) });
    // A store failure surfaces as "unavailable" (503), with the store's error kept as the cause.
    await assert.rejects(server.authenticate(created.key), (err: unknown) => {
      assert.ok(err instanceof StoreUnavailableError, String(err));
      assert.match(String((err as Error).cause), /database unavailable/);
      return true;
    });
    assert.equal((await server.authenticate(created.key)).ok, true);
  });

  it("keeps one plan per account: a key cannot differ from it, set-plan moves every key at once", async () => {
    const a = await service.createKey({ accountName: "acme", plan: "starter", name: "a" });
    assert.equal(a.account.plan, "starter");
    assert.equal(a.info.plan, "starter");
    // Creating a key never changes what the account may call: a different plan is refused.
    await assert.rejects(
      service.createKey({ accountName: "acme", plan: "enterprise", name: "b" }),
      isAccountsError("failed_precondition", /acme .* is on the starter plan.*accounts set-plan/),
    );
    await assert.rejects(
      service.createKey({ accountId: a.account.id, plan: "free", name: "b" }),
      isAccountsError("failed_precondition", /starter plan/),
    );
    assert.equal((await service.listKeys({ accountId: a.account.id })).length, 1);
    const b = await service.createKey({ accountId: a.account.id, name: "b" });
    assert.equal(b.info.plan, "starter");
    const first = await service.authenticate(a.key);
    assert.ok(first.ok);
    assert.equal(first.caller.plan, "starter");
    const moved = await service.setAccountPlan(a.account.id, "pro");
    assert.equal(moved.plan, "pro");
    for (const k of [a.key, b.key]) {
      const r = await service.authenticate(k);
      assert.ok(r.ok);
      assert.equal(r.caller.plan, "pro");
    }
    const rotated = await service.rotateKey(a.info.id);
    assert.equal(rotated.info.plan, "pro");
    await assert.rejects(
      service.setAccountPlan(a.account.id, "platinum"),
      isAccountsError("invalid_argument", /platinum/),
    );
    await assert.rejects(service.setAccountPlan("acct_none", "pro"), isAccountsError("not_found", /acct_none/));
  });

  it("lists keys without hashes", async () => {
    const created = await service.createKey({ accountName: "acme", plan: "pro", name: "k" });
    const listed = await service.listKeys();
    assert.equal(listed.length, 1);
    assert.equal(JSON.stringify(listed).includes(hashKey(created.key)), false);
    assert.equal(JSON.stringify(listed).includes(created.key), false);
  });
});
