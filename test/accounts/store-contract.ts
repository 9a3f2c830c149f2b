/**
 * The AccountsStore contract: one set of tests every implementation must pass. A suite calls
 * registerStoreContract with a function that makes a fresh, empty location (a temp dir, a new
 * PostgreSQL database) and returns a way to open a store on it, any number of times.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Migration } from "../../src/accounts/migrations.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/accounts/migrations.js";
import type { AccountsStore, NewApiKey } from "../../src/accounts/store.js";

/** One empty place a store can live; open() may be called repeatedly on the same data. */
export interface StoreLocation {
  /** Opens the store, migrating to `migrations` when given (the shipped schema otherwise). */
  open(options?: { migrations?: readonly Migration[] }): Promise<AccountsStore>;
}

/** A later schema version as a real upgrade would add it (the portal's columns, say). */
const NEXT: Migration = {
  version: LATEST_SCHEMA_VERSION + 1,
  description: "test: accounts.note",
  sqlite: "ALTER TABLE accounts ADD COLUMN note TEXT",
  postgres: "ALTER TABLE accounts ADD COLUMN note text",
};

const T0 = new Date("2026-03-01T10:00:00.123Z");
let seq = 0;

function newKey(accountId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  seq += 1;
  const id = `key${String(seq).padStart(9, "0")}`;
  return {
    id,
    accountId,
    name: `key ${seq}`,
    keyHash: "ab".repeat(32),
    displayPrefix: `ts_live_${id}_abcd`,
    createdAt: new Date(T0.getTime() + seq),
    ...overrides,
  };
}

/** Registers the contract tests in the current describe block. */
export function registerStoreContract(newLocation: () => Promise<StoreLocation>): void {
  /** Runs `body` with a store on a fresh location and always closes it. */
  async function withStore(body: (store: AccountsStore, location: StoreLocation) => Promise<void>): Promise<void> {
    const location = await newLocation();
    const store = await location.open();
    try {
      await body(store, location);
    } finally {
      await store.close();
    }
  }

  it("migrates a fresh database to the latest version, and reopening (also concurrently) changes nothing", async () => {
    const location = await newLocation();
    // Two processes starting together: the migration lock must let exactly one apply version 1.
    const [a, b] = await Promise.all([location.open(), location.open()]);
    try {
      assert.equal(await a.schemaVersion(), LATEST_SCHEMA_VERSION);
      assert.equal(await b.schemaVersion(), LATEST_SCHEMA_VERSION);
      await a.createAccount({ id: "acct_m", name: "m", createdAt: T0 });
    } finally {
      await a.close();
      await b.close();
    }
    const c = await location.open();
    try {
      assert.equal(await c.schemaVersion(), LATEST_SCHEMA_VERSION);
      assert.equal((await c.getAccount("acct_m"))?.name, "m", "reopening must not recreate tables");
    } finally {
      await c.close();
    }
  });

  it("upgrades by applying only the new versions, once, and then refuses older code", async () => {
    const location = await newLocation();
    const v1 = await location.open();
    await v1.createAccount({ id: "acct_u", name: "u", createdAt: T0 });
    await v1.close();
    const upgraded = [...MIGRATIONS, NEXT];
    for (let i = 0; i < 2; i++) {
      // A second open must not re-run NEXT: ALTER TABLE ... ADD COLUMN would fail the second time.
      const v2 = await location.open({ migrations: upgraded });
      try {
        assert.equal(await v2.schemaVersion(), NEXT.version);
        assert.equal((await v2.getAccount("acct_u"))?.name, "u");
      } finally {
        await v2.close();
      }
    }
    const refusal = `schema version ${NEXT.version}, newer than this build knows \\(${LATEST_SCHEMA_VERSION}\\)`;
    await assert.rejects(location.open(), new RegExp(refusal));
  });

  it("rolls a failing migration back entirely", async () => {
    const location = await newLocation();
    const broken: Migration = {
      ...NEXT,
      sqlite: `${NEXT.sqlite}; INSERT INTO no_such_table VALUES (1)`,
      postgres: `${NEXT.postgres}; INSERT INTO no_such_table VALUES (1)`,
    };
    await (await location.open()).close();
    await assert.rejects(location.open({ migrations: [...MIGRATIONS, broken] }), /no_such_table/);
    // Had the ALTER survived, applying NEXT now would fail on the existing column.
    const fixed = await location.open({ migrations: [...MIGRATIONS, NEXT] });
    try {
      assert.equal(await fixed.schemaVersion(), NEXT.version);
    } finally {
      await fixed.close();
    }
  });

  it("creates, reads and lists accounts with exact timestamps", async () => {
    await withStore(async (store) => {
      const made = await store.createAccount({
        id: "acct_1",
        name: "Ada",
        email: "ada@example.com",
        isAdmin: true,
        createdAt: T0,
      });
      assert.deepEqual(made, {
        id: "acct_1",
        name: "Ada",
        email: "ada@example.com",
        isAdmin: true,
        createdAt: T0,
        plan: "free",
        origin: "operator",
        emailVerifiedAt: null,
      });
      assert.deepEqual(await store.getAccount("acct_1"), made);
      assert.equal(await store.getAccount("acct_none"), undefined);
      const later = new Date(T0.getTime() + 1000);
      await store.createAccount({ id: "acct_2", name: "Ada", createdAt: later });
      await store.createAccount({ id: "acct_3", name: "Bob", createdAt: later });
      assert.deepEqual(
        (await store.findAccountsByName("Ada")).map((a) => a.id),
        ["acct_1", "acct_2"],
      );
      assert.deepEqual(await store.findAccountsByName("Nobody"), []);
      const all = await store.listAccounts();
      assert.deepEqual(
        all.map((a) => a.id),
        ["acct_1", "acct_2", "acct_3"],
      );
      assert.deepEqual(all[1], {
        id: "acct_2",
        name: "Ada",
        email: null,
        isAdmin: false,
        createdAt: later,
        plan: "free",
        origin: "operator",
        emailVerifiedAt: null,
      });
    });
  });

  it("keeps emails unique but allows many accounts without one", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_a", name: "a", email: "same@example.com", createdAt: T0 });
      await assert.rejects(store.createAccount({ id: "acct_b", name: "b", email: "same@example.com", createdAt: T0 }));
      await store.createAccount({ id: "acct_c", name: "c", email: null, createdAt: T0 });
      await store.createAccount({ id: "acct_d", name: "d", createdAt: T0 });
      assert.equal((await store.listAccounts()).length, 3);
      await assert.rejects(store.createAccount({ id: "acct_a", name: "dup id", createdAt: T0 }));
    });
  });

  it("stores keys, returns the hash only from getKey, and lists by account in creation order", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", plan: "starter", createdAt: T0 });
      await store.createAccount({ id: "acct_2", name: "two", createdAt: T0 });
      const k1 = newKey("acct_1", { overrides: { ratePerMinute: 5000, quota: null } });
      const k2 = newKey("acct_2");
      const k3 = newKey("acct_1");
      const info = await store.insertKey(k1);
      assert.equal("keyHash" in info, false, "insertKey must not hand the hash back");
      assert.deepEqual(info, {
        id: k1.id,
        accountId: "acct_1",
        name: k1.name,
        plan: "starter",
        displayPrefix: k1.displayPrefix,
        createdAt: k1.createdAt,
        revokedAt: null,
        expiresAt: null,
        rotatedTo: null,
        overrides: { ratePerMinute: 5000, quota: null },
      });
      await store.insertKey(k2);
      await store.insertKey(k3);
      const record = await store.getKey(k1.id);
      assert.equal(record?.keyHash, k1.keyHash);
      assert.deepEqual({ ...record, keyHash: undefined }, { ...info, keyHash: undefined });
      assert.equal(await store.getKey("nokey0000000"), undefined);

      const all = await store.listKeys();
      assert.deepEqual(
        all.map((k) => k.id),
        [k1.id, k2.id, k3.id],
      );
      for (const k of all) assert.equal("keyHash" in k, false, "listKeys must never carry hashes");
      assert.deepEqual(
        (await store.listKeys({ accountId: "acct_1" })).map((k) => k.id),
        [k1.id, k3.id],
      );
      assert.deepEqual(await store.listKeys({ accountId: "acct_none" }), []);
    });
  });

  it("refuses a key for an unknown account, a duplicate key id and invalid overrides", async () => {
    await withStore(async (store) => {
      await assert.rejects(store.insertKey(newKey("acct_missing")));
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const k = newKey("acct_1");
      await store.insertKey(k);
      await assert.rejects(store.insertKey({ ...k, name: "again" }));
      await assert.rejects(store.insertKey(newKey("acct_1", { overrides: { ratePerMinute: -1 } })), RangeError);
      assert.deepEqual(
        (await store.listKeys()).map((x) => x.id),
        [k.id],
      );
    });
  });

  it("revokes a key once; revoking again keeps the first time", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const k = newKey("acct_1");
      await store.insertKey(k);
      const first = new Date(T0.getTime() + 60_000);
      assert.deepEqual((await store.revokeKey(k.id, first))?.revokedAt, first);
      const second = new Date(T0.getTime() + 120_000);
      assert.deepEqual((await store.revokeKey(k.id, second))?.revokedAt, first);
      assert.deepEqual((await store.getKey(k.id))?.revokedAt, first);
      assert.equal(await store.revokeKey("nokey0000000", first), undefined);
    });
  });

  it("rotates atomically: replacement stored and old key retired, or nothing at all", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const old = newKey("acct_1", { overrides: { quota: 7 } });
      await store.insertKey(old);
      const replacement = newKey("acct_1", { name: old.name, overrides: { quota: 7 } });
      const graceEnd = new Date(T0.getTime() + 86_400_000);
      assert.equal(await store.rotateKey(old.id, replacement, graceEnd), true);
      const retired = await store.getKey(old.id);
      assert.deepEqual(retired?.expiresAt, graceEnd);
      assert.equal(retired?.rotatedTo, replacement.id);
      assert.equal(retired?.revokedAt, null);
      const fresh = await store.getKey(replacement.id);
      assert.equal(fresh?.keyHash, replacement.keyHash);
      assert.deepEqual(fresh?.overrides, { quota: 7 });
      assert.equal(fresh?.expiresAt, null);

      // Already rotated: refused, and the would-be replacement must not exist.
      const second = newKey("acct_1");
      assert.equal(await store.rotateKey(old.id, second, graceEnd), false);
      assert.equal(await store.getKey(second.id), undefined);
      assert.deepEqual((await store.getKey(old.id))?.rotatedTo, replacement.id);

      // Revoked or unknown: refused the same way.
      await store.revokeKey(replacement.id, T0);
      const third = newKey("acct_1");
      assert.equal(await store.rotateKey(replacement.id, third, graceEnd), false);
      assert.equal(await store.getKey(third.id), undefined);
      const fourth = newKey("acct_1");
      assert.equal(await store.rotateKey("nokey0000000", fourth, graceEnd), false);
      assert.equal(await store.getKey(fourth.id), undefined);
    });
  });

  it("gives every key its account's plan: one change moves them all, revoked ones included", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", plan: "starter", createdAt: T0 });
      await store.createAccount({ id: "acct_2", name: "two", plan: "starter", createdAt: T0 });
      const a = newKey("acct_1");
      const b = newKey("acct_1");
      const revoked = newKey("acct_1");
      const other = newKey("acct_2");
      for (const k of [a, b, revoked, other]) await store.insertKey(k);
      await store.revokeKey(revoked.id, T0);
      const rotatedTo = newKey("acct_1");
      assert.equal(await store.rotateKey(b.id, rotatedTo, new Date(T0.getTime() + 1000)), true);
      assert.equal(await store.setAccountPlan("acct_1", "enterprise"), true);
      const plans = Object.fromEntries((await store.listKeys()).map((k) => [k.id, k.plan]));
      assert.deepEqual(plans, {
        [a.id]: "enterprise",
        [b.id]: "enterprise",
        [revoked.id]: "enterprise",
        [other.id]: "starter",
        [rotatedTo.id]: "enterprise",
      });
      assert.equal((await store.getKey(a.id))?.plan, "enterprise");
      assert.equal((await store.revokeKey(a.id, T0))?.plan, "enterprise");
      const inserted = await store.insertKey(newKey("acct_1"));
      assert.equal(inserted.plan, "enterprise");
    });
  });

  it("replaces overrides and validates them", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const k = newKey("acct_1");
      await store.insertKey(k);
      assert.deepEqual((await store.getKey(k.id))?.overrides, {});
      assert.equal(await store.setOverrides(k.id, { ratePerMinute: 2000, quota: null }), true);
      assert.deepEqual((await store.getKey(k.id))?.overrides, { ratePerMinute: 2000, quota: null });
      assert.equal(await store.setOverrides(k.id, {}), true);
      assert.deepEqual((await store.getKey(k.id))?.overrides, {});
      assert.equal(await store.setOverrides("nokey0000000", {}), false);
      await assert.rejects(store.setOverrides(k.id, { quota: 1.5 }), RangeError);
      await assert.rejects(store.setOverrides(k.id, { ratePerMinut: 3 } as never), /unknown field "ratePerMinut"/);
    });
  });

  it("counts usage per key, day and operation, and reads inclusive day ranges", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      await store.createAccount({ id: "acct_2", name: "two", createdAt: T0 });
      const a = newKey("acct_1");
      const b = newKey("acct_1");
      const c = newKey("acct_2");
      for (const k of [a, b, c]) await store.insertKey(k);
      await store.recordUsage(a.id, "2026-03-01", "search.semantic", 1);
      await store.recordUsage(a.id, "2026-03-01", "search.semantic", 2);
      await store.recordUsage(a.id, "2026-03-01", "leads", 1);
      await store.recordUsage(a.id, "2026-03-02", "search.semantic", 5);
      await store.recordUsage(a.id, "2026-02-28", "trends", 1);
      await store.recordUsage(b.id, "2026-03-02", "trends", 4);
      await store.recordUsage(c.id, "2026-03-02", "trends", 9);

      assert.deepEqual(await store.usageBetween(a.id, "2026-03-01", "2026-03-02"), [
        { keyId: a.id, day: "2026-03-01", operation: "leads", count: 1 },
        { keyId: a.id, day: "2026-03-01", operation: "search.semantic", count: 3 },
        { keyId: a.id, day: "2026-03-02", operation: "search.semantic", count: 5 },
      ]);
      assert.deepEqual(await store.usageBetween(a.id, "2026-03-03", "2026-03-31"), []);
      assert.deepEqual(
        await store.usageBetween(a.id, "2026-03-02", "2026-03-01"),
        [],
        "from after to is an empty range",
      );
      assert.deepEqual(await store.usageByAccount("acct_1", "2026-03-02", "2026-03-02"), [
        { keyId: a.id, day: "2026-03-02", operation: "search.semantic", count: 5 },
        { keyId: b.id, day: "2026-03-02", operation: "trends", count: 4 },
      ]);
      assert.deepEqual(await store.usageByAccount("acct_none", "2026-01-01", "2026-12-31"), []);
    });
  });

  it("refuses malformed usage arguments", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const k = newKey("acct_1");
      await store.insertKey(k);
      await assert.rejects(store.recordUsage(k.id, "2026-3-1", "x", 1), /day must be a calendar day/);
      await assert.rejects(store.recordUsage(k.id, "2026-02-30", "x", 1), /day must be a calendar day/);
      await assert.rejects(store.recordUsage(k.id, "2026-03-01", "", 1), /operation/);
      await assert.rejects(store.recordUsage(k.id, "2026-03-01", "x", 0), /n must be/);
      await assert.rejects(store.recordUsage(k.id, "2026-03-01", "x", 1.5), /n must be/);
      await assert.rejects(store.usageBetween(k.id, "yesterday", "2026-03-01"), /fromDay/);
      await assert.rejects(store.recordUsage("nokey0000000", "2026-03-01", "x", 1), "usage needs an existing key");
      assert.deepEqual(await store.usageBetween(k.id, "2026-01-01", "2026-12-31"), []);
    });
  });

  it("adds up 100 concurrent increments exactly, also from two open stores at once", async () => {
    await withStore(async (store, location) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const k = newKey("acct_1");
      await store.insertKey(k);
      const second = await location.open();
      try {
        const calls = Array.from({ length: 100 }, (_, i) =>
          (i % 2 === 0 ? store : second).recordUsage(k.id, "2026-03-05", "search.semantic", 1 + (i % 3)),
        );
        await Promise.all(calls);
      } finally {
        await second.close();
      }
      const expected = Array.from({ length: 100 }, (_, i) => 1 + (i % 3)).reduce((s, n) => s + n, 0);
      assert.deepEqual(await store.usageBetween(k.id, "2026-03-05", "2026-03-05"), [
        { keyId: k.id, day: "2026-03-05", operation: "search.semantic", count: expected },
      ]);
    });
  });

  it("keeps everything across close and reopen", async () => {
    const location = await newLocation();
    const first = await location.open();
    await first.createAccount({ id: "acct_1", name: "one", email: "one@example.com", plan: "pro", createdAt: T0 });
    const k = newKey("acct_1", { overrides: { ratePerMinute: 10 } });
    await first.insertKey(k);
    const replacement = newKey("acct_1");
    const graceEnd = new Date(T0.getTime() + 5_000);
    await first.rotateKey(k.id, replacement, graceEnd);
    await first.revokeKey(replacement.id, new Date(T0.getTime() + 9_000));
    await first.recordUsage(k.id, "2026-03-01", "leads", 3);
    const accountsBefore = await first.listAccounts();
    const keysBefore = await Promise.all([first.getKey(k.id), first.getKey(replacement.id)]);
    await first.close();

    const again = await location.open();
    try {
      assert.deepEqual(await again.listAccounts(), accountsBefore);
      assert.deepEqual(await Promise.all([again.getKey(k.id), again.getKey(replacement.id)]), keysBefore);
      assert.deepEqual(await again.usageBetween(k.id, "2026-03-01", "2026-03-01"), [
        { keyId: k.id, day: "2026-03-01", operation: "leads", count: 3 },
      ]);
    } finally {
      await again.close();
    }
  });

  it("finds accounts by email case-insensitively and stores emails lowercase", async () => {
    await withStore(async (store) => {
      const made = await store.createAccount({
        id: "acct_e",
        name: "E",
        email: "  Mixed.Case@Example.COM ",
        createdAt: T0,
        plan: "pro",
      });
      assert.equal(made.email, "mixed.case@example.com");
      assert.equal(made.plan, "pro");
      assert.equal((await store.findAccountByEmail("MIXED.case@example.com"))?.id, "acct_e");
      assert.deepEqual(await store.getAccount("acct_e"), made);
      assert.equal(await store.findAccountByEmail("other@example.com"), undefined);
      await assert.rejects(
        store.createAccount({ id: "acct_f", name: "F", email: "mixed.CASE@example.com", createdAt: T0 }),
      );
    });
  });

  it("keeps the password hash out of every record and hands it out only by getPasswordHash", async () => {
    await withStore(async (store) => {
      const hash = "scrypt$16384$8$1$c2FsdA$aGFzaGhhc2hoYXNoaGFzaA";
      const made = await store.createAccount({
        id: "acct_p",
        name: "P",
        email: "p@example.com",
        passwordHash: hash,
        createdAt: T0,
      });
      await store.createAccount({ id: "acct_q", name: "Q", createdAt: T0 });
      for (const record of [
        made,
        await store.getAccount("acct_p"),
        await store.findAccountByEmail("p@example.com"),
        ...(await store.listAccounts()),
        ...(await store.findAccountsByName("P")),
      ]) {
        assert.ok(record !== undefined);
        assert.equal(JSON.stringify(record).includes("scrypt"), false, "no record may carry the hash");
        assert.equal("passwordHash" in record, false);
      }
      assert.equal(await store.getPasswordHash("acct_p"), hash);
      assert.equal(await store.getPasswordHash("acct_q"), null);
      assert.equal(await store.getPasswordHash("acct_none"), undefined);
      assert.equal(await store.setPasswordHash("acct_q", "scrypt$x"), true);
      assert.equal(await store.getPasswordHash("acct_q"), "scrypt$x");
      assert.equal(await store.setPasswordHash("acct_none", "scrypt$x"), false);
    });
  });

  it("sets an account's plan and admin flag", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const k = newKey("acct_1");
      await store.insertKey(k);
      assert.equal(await store.setAccountPlan("acct_1", "pro"), true);
      assert.equal((await store.getAccount("acct_1"))?.plan, "pro");
      assert.equal((await store.getKey(k.id))?.plan, "pro");
      assert.equal(await store.setAccountPlan("acct_none", "pro"), false);
      assert.equal(await store.setAdmin("acct_1", true), true);
      assert.equal((await store.getAccount("acct_1"))?.isAdmin, true);
      assert.equal(await store.setAdmin("acct_1", false), true);
      assert.equal((await store.getAccount("acct_1"))?.isAdmin, false);
      assert.equal(await store.setAdmin("acct_none", true), false);
    });
  });

  it("records who made an account: operator by default, portal when said", async () => {
    await withStore(async (store) => {
      const portal = await store.createAccount({
        id: "acct_p",
        name: "acme-corp",
        email: "x@example.com",
        origin: "portal",
        createdAt: T0,
      });
      assert.equal(portal.origin, "portal");
      assert.equal((await store.getAccount("acct_p"))?.origin, "portal");
      await store.createAccount({ id: "acct_o", name: "acme-corp", createdAt: T0 });
      assert.deepEqual(
        (await store.findAccountsByName("acme-corp")).map((a) => [a.id, a.origin]),
        [
          ["acct_o", "operator"],
          ["acct_p", "portal"],
        ],
      );
      await assert.rejects(
        store.createAccount({ id: "acct_bad", name: "b", origin: "nobody" as "portal", createdAt: T0 }),
      );
    });
  });

  it("spends an email verification token once, only before it expires", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_v", name: "v", email: "v@example.com", origin: "portal", createdAt: T0 });
      const later = new Date(T0.getTime() + 60_000);
      await store.createEmailVerification({
        tokenHash: "c1".repeat(32),
        accountId: "acct_v",
        createdAt: T0,
        expiresAt: later,
      });
      await store.createEmailVerification({
        tokenHash: "c2".repeat(32),
        accountId: "acct_v",
        createdAt: T0,
        expiresAt: later,
      });
      await assert.rejects(
        store.createEmailVerification({
          tokenHash: "c3".repeat(32),
          accountId: "acct_none",
          createdAt: T0,
          expiresAt: later,
        }),
      );
      // Expired: spent (gone) but verifies nothing.
      assert.equal(await store.consumeEmailVerification("c2".repeat(32), later), undefined);
      assert.equal((await store.getAccount("acct_v"))?.emailVerifiedAt, null);
      assert.equal(await store.consumeEmailVerification("c2".repeat(32), T0), undefined, "an expired token is gone");
      // Concurrent double use: exactly one wins.
      const at = new Date(T0.getTime() + 1000);
      const results = await Promise.all([
        store.consumeEmailVerification("c1".repeat(32), at),
        store.consumeEmailVerification("c1".repeat(32), at),
      ]);
      assert.deepEqual(
        results.filter((r) => r !== undefined),
        ["acct_v"],
      );
      assert.deepEqual((await store.getAccount("acct_v"))?.emailVerifiedAt, at);
      assert.equal(await store.consumeEmailVerification("ff".repeat(32), at), undefined);
    });
  });

  it("upgrades a version-2 database: email or password means portal-made, nothing counts as verified", async () => {
    const location = await newLocation();
    // Rows as version 2 held them, written by SQL appended to migration 2 (today's code writes v3 rows).
    const rows = `INSERT INTO accounts (id, name, created_at, is_admin) VALUES ('acct_cli', 'acme-corp', %T, %F);
      INSERT INTO accounts (id, name, email, created_at, is_admin, password_hash) VALUES ('acct_web', 'acme-corp', 's@example.com', %T, %F, 'scrypt$x');`;
    const v2 = MIGRATIONS.filter((m) => m.version <= 2).map((m) =>
      m.version < 2
        ? m
        : {
            ...m,
            sqlite: m.sqlite + rows.replaceAll("%T", "0").replaceAll("%F", "0"),
            postgres: m.postgres + rows.replaceAll("%T", "now()").replaceAll("%F", "false"),
          },
    );
    // SQLite prepares today's statements at open, which a version-2 schema cannot satisfy, so that
    // open fails after its migrations committed; PostgreSQL opens fine.
    await location.open({ migrations: v2 }).then(
      (s) => s.close(),
      () => undefined,
    );
    const v3 = await location.open();
    try {
      assert.equal(await v3.schemaVersion(), LATEST_SCHEMA_VERSION);
      assert.equal((await v3.getAccount("acct_cli"))?.origin, "operator");
      assert.equal((await v3.getAccount("acct_web"))?.origin, "portal");
      assert.equal((await v3.getAccount("acct_web"))?.emailVerifiedAt, null);
    } finally {
      await v3.close();
    }
  });

  it("creates, reads, deletes and expires sessions", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      const session = {
        tokenHash: "a1".repeat(32),
        accountId: "acct_1",
        csrfToken: "csrf-1",
        createdAt: T0,
        expiresAt: new Date(T0.getTime() + 3_600_000),
      };
      const stale = { ...session, tokenHash: "b2".repeat(32), expiresAt: new Date(T0.getTime() + 1_000) };
      await store.createSession(session);
      await store.createSession(stale);
      assert.deepEqual(await store.getSession(session.tokenHash), session);
      assert.equal(await store.getSession("c3".repeat(32)), undefined);
      await assert.rejects(store.createSession(session), "token hashes are unique");
      await assert.rejects(store.createSession({ ...session, tokenHash: "d4".repeat(32), accountId: "acct_none" }));
      assert.equal(await store.deleteExpiredSessions(new Date(T0.getTime() + 1_000)), 1, "expiresAt <= now is expired");
      assert.equal(await store.getSession(stale.tokenHash), undefined);
      assert.deepEqual(await store.getSession(session.tokenHash), session);
      assert.equal(await store.deleteSession(session.tokenHash), true);
      assert.equal(await store.deleteSession(session.tokenHash), false);
      assert.equal(await store.getSession(session.tokenHash), undefined);
    });
  });

  it("sums an account's usage per day and operation, and totals every account over a range", async () => {
    await withStore(async (store) => {
      await store.createAccount({ id: "acct_1", name: "one", createdAt: T0 });
      await store.createAccount({ id: "acct_2", name: "two", createdAt: T0 });
      await store.createAccount({ id: "acct_3", name: "three", createdAt: T0 });
      const a = newKey("acct_1");
      const b = newKey("acct_1");
      const c = newKey("acct_2");
      for (const k of [a, b, c]) await store.insertKey(k);
      await store.recordUsage(a.id, "2026-03-01", "leads", 2);
      await store.recordUsage(b.id, "2026-03-01", "leads", 3);
      await store.recordUsage(b.id, "2026-03-01", "trends", 1);
      await store.recordUsage(a.id, "2026-03-03", "leads", 4);
      await store.recordUsage(a.id, "2026-02-27", "leads", 100);
      await store.recordUsage(c.id, "2026-03-02", "trends", 7);
      assert.deepEqual(await store.accountDailyUsage("acct_1", "2026-03-01", "2026-03-31"), [
        { day: "2026-03-01", operation: "leads", count: 5 },
        { day: "2026-03-01", operation: "trends", count: 1 },
        { day: "2026-03-03", operation: "leads", count: 4 },
      ]);
      assert.deepEqual(await store.accountDailyUsage("acct_3", "2026-03-01", "2026-03-31"), []);
      const totals = await store.usageTotalsByAccount("2026-03-01", "2026-03-31");
      assert.deepEqual([...totals].sort(), [
        ["acct_1", 10],
        ["acct_2", 7],
      ]);
      await assert.rejects(store.accountDailyUsage("acct_1", "March", "2026-03-31"), /fromDay/);
    });
  });

  it("answers ping while open and refuses after close", async () => {
    const location = await newLocation();
    const store = await location.open();
    await store.ping();
    await store.close();
    await store.close();
    await assert.rejects(store.ping());
  });
}
