/**
 * The portal service on real stores (SQLite in a temp dir, and a real PostgreSQL): sign-up and
 * sign-in rules, failed sign-in limits, fixed-lifetime sessions on an injected clock, plan changes
 * moving keys, key ownership, usage per account, the admin gate, and that no result ever carries
 * a password hash.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import type { AccountsStore } from "../../src/accounts/store.js";
import { utcDay } from "../../src/accounts/usage-args.js";
import type { Limits } from "../../src/limits/open-limits.js";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import type { BillingProvider } from "../../src/portal/billing.js";
import type { PortalDeps } from "../../src/portal/portal-accounts.js";
import { createPortalService } from "../../src/portal/portal-accounts.js";
import type { PortalFailure, PortalService, PortalSession } from "../../src/portal/portal-service.js";
import { PortalError } from "../../src/portal/portal-service.js";
import { DEFAULT_SIGN_IN_LIMITS } from "../../src/portal/sign-in-limiter.js";
import { startPostgres } from "../harness/postgres.js";
import { limitsFor } from "../limits/fixtures.js";

const CATALOG = loadPlanCatalog("config/plans/variant-b.json");
const PASSWORD = "correct horse battery";
const ADDRESS = "192.0.2.10";
const URLS = {
  success: "https://portal.example/portal/plans?checkout=done",
  cancel: "https://portal.example/portal/plans?checkout=cancelled",
};

/** Where a suite's stores live: SQLite data dirs, or databases on one PostgreSQL server. */
interface Backend {
  open(): Promise<{ store: AccountsStore; dataDir: string; databaseUrl: string | undefined }>;
}

/** A rejection carrying a PortalError of this kind (and field, when given). */
function failure(kind: PortalFailure["kind"], field?: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof PortalError, `expected a PortalError, got ${String(e)}`);
    assert.equal(e.failure.kind, kind, e.message);
    if (field !== undefined) assert.equal((e.failure as { field?: string }).field, field);
    return true;
  };
}

/** Signs up, then in with the same password (sign-up itself starts no session). */
async function join(
  portal: PortalService,
  input: { email: string; password: string; name: string },
  address: string,
): Promise<PortalSession> {
  await portal.signUp(input, address);
  return portal.signIn({ email: input.email, password: input.password }, address);
}

function registerPortalSuite(backend: Backend): void {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  /** A portal over a fresh store, with a clock the test moves. */
  async function setup(extra: Partial<PortalDeps> = {}) {
    const { store, dataDir, databaseUrl } = await backend.open();
    let t = Date.now();
    const clock = { now: () => new Date(t), advance: (ms: number) => (t += ms) };
    const keys = createKeyService({ store, now: clock.now, cacheTtlMs: 0 });
    const limits: Limits = await limitsFor(CATALOG, { dataDir, databaseUrl }, () => t);
    cleanups.push(async () => {
      await limits.close();
      await store.close();
    });
    const portal = createPortalService({
      store,
      keys,
      enforcer: limits.enforcer,
      catalog: CATALOG,
      now: clock.now,
      ...extra,
    });
    return { portal, store, keys, limits, clock };
  }

  let seq = 0;
  const email = (): string => `user${++seq}-${process.pid}@example.com`;

  it("signs up on the free plan with a session, and normalises the email", async () => {
    const { portal, store } = await setup();
    const address = email();
    const s = await join(portal, { email: `  ${address.toUpperCase()} `, password: PASSWORD, name: " Ada " }, ADDRESS);
    assert.match(s.token, /^[A-Za-z0-9_-]{43}$/);
    assert.match(s.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(s.token, s.csrfToken);
    assert.equal(s.account.email, address);
    assert.equal(s.account.name, "Ada");
    assert.equal(s.account.plan, "free");
    assert.equal(s.account.isAdmin, false);
    const active = await portal.session(s.token);
    assert.deepEqual(active, { csrfToken: s.csrfToken, expiresAt: s.expiresAt, account: s.account });
    assert.equal((await store.getAccount(s.account.id))?.plan, "free");
    // A taken email gets the same answer as a new one (no session, no error) and changes nothing.
    assert.equal(
      await portal.signUp({ email: address.toUpperCase(), password: PASSWORD, name: "Again" }, ADDRESS),
      undefined,
    );
    assert.equal((await store.findAccountByEmail(address))?.name, "Ada");
  });

  it("refuses bad sign-up input naming the field", async () => {
    const { portal } = await setup();
    const ok = { email: email(), password: PASSWORD, name: "Ada" };
    const cases: [Partial<typeof ok>, string, RegExp][] = [
      [{ email: "not-an-email" }, "email", /name@example\.com/],
      [{ email: `${"a".repeat(250)}@example.com` }, "email", /at most 254/],
      [{ password: "short" }, "password", /10 to 200/],
      [{ password: "x".repeat(201) }, "password", /10 to 200/],
      [{ password: " ".repeat(12) }, "password", /spaces/],
      [{ password: "Password123" }, "password", /common/],
      [{ email: "same.as.password@example.com", password: "Same.As.Password@example.com" }, "password", /email/],
      [{ name: "  " }, "name", /required/],
      [{ name: "n".repeat(101) }, "name", /at most 100/],
    ];
    for (const [change, field, message] of cases) {
      await assert.rejects(
        portal.signUp({ ...ok, ...change }, ADDRESS),
        (e) => failure("invalid", field)(e) && message.test((e as Error).message),
      );
    }
  });

  it("signs in with the right password; a wrong password and an unknown email fail alike", async () => {
    const { portal } = await setup();
    const address = email();
    const up = await join(portal, { email: address, password: PASSWORD, name: "Ada" }, ADDRESS);
    const s = await portal.signIn({ email: address.toUpperCase(), password: PASSWORD }, ADDRESS);
    assert.equal(s.account.id, up.account.id);
    assert.notEqual(s.token, up.token, "every sign-in gets its own session");
    const wrong = await portal
      .signIn({ email: address, password: "not the password" }, ADDRESS)
      .catch((e: unknown) => e);
    const unknown = await portal.signIn({ email: email(), password: PASSWORD }, ADDRESS).catch((e: unknown) => e);
    assert.ok(wrong instanceof PortalError && unknown instanceof PortalError);
    assert.deepEqual(wrong.failure, unknown.failure);
    assert.equal(wrong.failure.kind, "bad_credentials");
    const tooLong = await portal
      .signIn({ email: address, password: "y".repeat(10_000) }, ADDRESS)
      .catch((e: unknown) => e);
    assert.ok(tooLong instanceof PortalError);
    assert.deepEqual(tooLong.failure, wrong.failure);
    await assert.rejects(
      portal.signIn({ email: `${"e".repeat(300)}@example.com`, password: PASSWORD }, ADDRESS),
      failure("invalid", "email"),
    );
    await assert.rejects(portal.signIn({ email: address, password: "" }, ADDRESS), failure("invalid", "password"));
  });

  it("limits failed sign-ins per email+address and per address; a success clears the email+address count", async () => {
    const limits = {
      perEmailAndAddress: { free: 3, baseDelaySeconds: 60, maxDelaySeconds: 900 },
      perAddress: { free: 6, baseDelaySeconds: 60, maxDelaySeconds: 900 },
    };
    const { portal } = await setup({ signInLimits: limits });
    const address = email();
    await portal.signUp({ email: address, password: PASSWORD, name: "Ada" }, ADDRESS);
    // Two failures, a success (resets), then three failures: only the last three count.
    for (let i = 0; i < 2; i++)
      await assert.rejects(
        portal.signIn({ email: address, password: "wrong password" }, "198.51.100.1"),
        failure("bad_credentials"),
      );
    await portal.signIn({ email: address, password: PASSWORD }, "198.51.100.1");
    for (let i = 0; i < 3; i++)
      await assert.rejects(
        portal.signIn({ email: address, password: "wrong password" }, "198.51.100.1"),
        failure("bad_credentials"),
      );
    const limited = await portal
      .signIn({ email: address, password: PASSWORD }, "198.51.100.1")
      .catch((e: unknown) => e);
    assert.ok(limited instanceof PortalError && limited.failure.kind === "rate_limited");
    assert.ok(limited.failure.retryAfterSeconds > 0 && limited.failure.retryAfterSeconds <= 900);
    // The same email from another address is unaffected.
    await portal.signIn({ email: address, password: PASSWORD }, "198.51.100.2");
    // One address trying many emails: 6 failures in all, then even a new email is refused.
    for (let i = 0; i < 6; i++)
      await assert.rejects(
        portal.signIn({ email: email(), password: PASSWORD }, "198.51.100.3"),
        failure("bad_credentials"),
      );
    await assert.rejects(
      portal.signIn({ email: address, password: PASSWORD }, "198.51.100.3"),
      failure("rate_limited"),
    );
  });

  it("reserves before checking: 30 parallel sign-ins (29 wrong, 1 right) check at most 5 passwords", async () => {
    const { portal } = await setup();
    const address = email();
    await portal.signUp({ email: address, password: PASSWORD, name: "Ada" }, ADDRESS);
    const attempts = Array.from({ length: 30 }, (_, i) => (i === 17 ? PASSWORD : `wrong guess ${i}`));
    const results = await Promise.all(
      attempts.map((password) =>
        portal.signIn({ email: address, password }, "198.51.100.20").then(
          () => "ok",
          (e: unknown) => e,
        ),
      ),
    );
    const kinds = results.map((r) => (r === "ok" ? "ok" : r instanceof PortalError ? r.failure.kind : String(r)));
    const checked = kinds.filter((k) => k !== "rate_limited");
    assert.equal(checked.length, DEFAULT_SIGN_IN_LIMITS.perEmailAndAddress.free, kinds.join(","));
    assert.ok(
      checked.every((k) => k === "bad_credentials" || k === "ok"),
      kinds.join(","),
    );
    assert.equal(kinds.filter((k) => k === "rate_limited").length, 25);
  });

  it("limits one email across addresses, with a delay that grows per attempt and stays short for the owner", async () => {
    const { portal, clock } = await setup();
    const address = email();
    await portal.signUp({ email: address, password: PASSWORD, name: "Ada" }, ADDRESS);
    // 7 addresses x 5 wrong guesses: only the per-email allowance is checked.
    const kinds: string[] = [];
    for (let a = 0; a < 7; a++) {
      for (let i = 0; i < 5; i++) {
        const r = await portal
          .signIn({ email: address, password: `guess ${a}.${i}` }, `203.0.113.${a + 1}`)
          .catch((e: unknown) => e);
        kinds.push(r instanceof PortalError ? r.failure.kind : "ok");
      }
    }
    const policy = DEFAULT_SIGN_IN_LIMITS.perEmail;
    assert.equal(kinds.filter((k) => k === "bad_credentials").length, policy.free, kinds.join(","));
    assert.equal(kinds.filter((k) => k === "rate_limited").length, 35 - policy.free);
    // The owner, from a fresh address, is delayed, not locked out: base delay, then through.
    const owner = "198.51.100.99";
    const waited = await portal.signIn({ email: address, password: PASSWORD }, owner).catch((e: unknown) => e);
    assert.ok(waited instanceof PortalError && waited.failure.kind === "rate_limited");
    assert.ok(waited.failure.retryAfterSeconds <= policy.baseDelaySeconds, String(waited.failure.retryAfterSeconds));
    clock.advance(policy.baseDelaySeconds * 1000);
    // One more wrong guess goes through and doubles the wait; refused attempts add nothing.
    await assert.rejects(
      portal.signIn({ email: address, password: "guess again" }, "203.0.113.50"),
      failure("bad_credentials"),
    );
    for (let i = 0; i < 10; i++)
      await assert.rejects(
        portal.signIn({ email: address, password: "hammer" }, "203.0.113.51"),
        failure("rate_limited"),
      );
    const second = await portal.signIn({ email: address, password: PASSWORD }, owner).catch((e: unknown) => e);
    assert.ok(second instanceof PortalError && second.failure.kind === "rate_limited");
    assert.ok(
      second.failure.retryAfterSeconds > policy.baseDelaySeconds &&
        second.failure.retryAfterSeconds <= policy.maxDelaySeconds,
    );
    clock.advance(policy.maxDelaySeconds * 1000);
    const s = await portal.signIn({ email: address, password: PASSWORD }, owner);
    assert.equal(s.account.email, address);
  });

  it("sessions last a fixed lifetime, end at sign-out, and malformed tokens never reach the store", async () => {
    const { portal, store, clock } = await setup({ sessionTtlSeconds: 3600 });
    const s = await join(portal, { email: email(), password: PASSWORD, name: "Ada" }, ADDRESS);
    assert.equal(s.expiresAt.getTime(), clock.now().getTime() + 3_600_000);
    clock.advance(3_599_000);
    assert.equal((await portal.session(s.token))?.account.id, s.account.id);
    assert.equal(
      (await portal.session(s.token))?.expiresAt.getTime(),
      s.expiresAt.getTime(),
      "use does not extend a session",
    );
    clock.advance(1_000);
    assert.equal(await portal.session(s.token), undefined);

    const s2 = await portal.signIn({ email: s.account.email, password: PASSWORD }, ADDRESS);
    assert.ok(await portal.session(s2.token));
    await portal.signOut(s2.token);
    assert.equal(await portal.session(s2.token), undefined);
    await portal.signOut(s2.token);

    let lookups = 0;
    const counting = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === "getSession") lookups++;
        return Reflect.get(target, prop, receiver);
      },
    });
    const { portal: watched } = await setupWith(counting);
    for (const bad of ["", "x", s2.token.slice(1), `${s2.token}=`, "a".repeat(10_000), s2.token.replace(/.$/, "!")]) {
      assert.equal(await watched.session(bad), undefined);
    }
    assert.equal(lookups, 0);
  });

  /** A portal over an existing store (for wrapping it). */
  async function setupWith(store: AccountsStore): Promise<{ portal: PortalService }> {
    const { dataDir, databaseUrl, store: own } = await backend.open();
    const limits = await limitsFor(CATALOG, { dataDir, databaseUrl });
    cleanups.push(async () => {
      await limits.close();
      await own.close();
    });
    return {
      portal: createPortalService({
        store,
        keys: createKeyService({ store }),
        enforcer: limits.enforcer,
        catalog: CATALOG,
      }),
    };
  }

  it("a plan change moves the account and every key, and new keys follow it", async () => {
    const { portal, keys } = await setup();
    const s = await join(portal, { email: email(), password: PASSWORD, name: "Ada" }, ADDRESS);
    const a = await portal.createKey(s.account.id, "laptop");
    const b = await portal.createKey(s.account.id, "server");
    assert.equal(a.info.plan, "free");
    await portal.revokeKey(s.account.id, b.info.id);
    // No billing provider: a paid plan is refused and nothing moves.
    await assert.rejects(portal.changePlan(s.account.id, "pro", URLS), failure("forbidden"));
    assert.equal((await portal.session(s.token))?.account.plan, "free");
    // The operator's way (threadsight accounts set-plan) moves the account and every key.
    assert.equal((await keys.setAccountPlan(s.account.id, "pro")).plan, "pro");
    const byId = Object.fromEntries((await portal.listKeys(s.account.id)).map((k) => [k.id, k.plan]));
    assert.deepEqual(byId, { [a.info.id]: "pro", [b.info.id]: "pro" });
    const auth = await keys.authenticate(a.key);
    assert.ok(auth.ok && auth.caller.plan === "pro");
    assert.equal((await portal.createKey(s.account.id, "ci")).info.plan, "pro");
    assert.equal((await portal.session(s.token))?.account.plan, "pro");
    await assert.rejects(portal.changePlan(s.account.id, "platinum", URLS), failure("invalid", "plan"));
    await assert.rejects(portal.changePlan("acct_nobody", "pro", URLS), failure("not_found"));
    const down = await portal.changePlan(s.account.id, "free", URLS);
    assert.equal(down.account.plan, "free");
    assert.deepEqual([...new Set((await portal.listKeys(s.account.id)).map((k) => k.plan))], ["free"]);
  });

  it("asks the billing provider first and changes nothing when it refuses", async () => {
    const seen: string[] = [];
    const billing: BillingProvider = {
      name: "stripe",
      async changePlan(_account, from, to) {
        seen.push(`${from}->${to}`);
        if (to === "enterprise") throw new PortalError({ kind: "conflict", message: "payment declined" });
        return { kind: "apply" };
      },
    };
    const { portal } = await setup({ billing });
    const s = await join(portal, { email: email(), password: PASSWORD, name: "Ada" }, ADDRESS);
    const k = await portal.createKey(s.account.id, "laptop");
    await portal.changePlan(s.account.id, "lite", URLS);
    await assert.rejects(portal.changePlan(s.account.id, "enterprise", URLS), failure("conflict"));
    assert.deepEqual(seen, ["free->lite", "lite->enterprise"]);
    assert.equal((await portal.session(s.token))?.account.plan, "lite");
    assert.equal((await portal.listKeys(s.account.id)).find((x) => x.id === k.info.id)?.plan, "lite");
  });

  it("keys: newest first, and another account's key is not found, exactly like a missing one", async () => {
    const { portal, clock } = await setup();
    const alice = await join(portal, { email: email(), password: PASSWORD, name: "Alice" }, ADDRESS);
    const bob = await join(portal, { email: email(), password: PASSWORD, name: "Bob" }, ADDRESS);
    const first = await portal.createKey(alice.account.id, "first");
    clock.advance(1_000);
    const second = await portal.createKey(alice.account.id, "second");
    assert.deepEqual(
      (await portal.listKeys(alice.account.id)).map((k) => k.id),
      [second.info.id, first.info.id],
    );
    assert.deepEqual(await portal.listKeys(bob.account.id), []);
    for (const act of [portal.rotateKey.bind(portal), portal.revokeKey.bind(portal)]) {
      const foreign = await act(bob.account.id, first.info.id).catch((e: unknown) => e);
      const missing = await act(bob.account.id, "AAAAAAAAAAAA").catch((e: unknown) => e);
      assert.ok(foreign instanceof PortalError && missing instanceof PortalError);
      assert.equal(foreign.failure.kind, "not_found");
      assert.equal(foreign.message.replace(first.info.id, "ID"), missing.message.replace("AAAAAAAAAAAA", "ID"));
    }
    assert.equal(
      (await portal.listKeys(alice.account.id)).every((k) => k.revokedAt === null && k.rotatedTo === null),
      true,
    );
    const rotated = await portal.rotateKey(alice.account.id, first.info.id);
    assert.equal(rotated.oldKey.rotatedTo, rotated.info.id);
    assert.equal(rotated.info.accountId, alice.account.id);
    await assert.rejects(portal.rotateKey(alice.account.id, first.info.id), failure("conflict"));
    const revoked = await portal.revokeKey(alice.account.id, second.info.id);
    assert.ok(revoked.revokedAt !== null);
    await assert.rejects(portal.createKey(alice.account.id, " "), failure("invalid", "name"));
  });

  it("usage counts every key of the account, with per-operation counts and a zero-filled daily series", async () => {
    const { portal, keys, limits, store, clock } = await setup();
    const s = await join(portal, { email: email(), password: PASSWORD, name: "Ada" }, ADDRESS);
    const empty = await portal.usage(s.account.id, 7);
    assert.equal(empty.plan, "free");
    assert.deepEqual([empty.used, empty.limit, empty.remaining], [0, 3, 3], "no key yet: the plan's whole quota");
    assert.deepEqual(
      empty.daily.map((d) => d.count),
      [0, 0, 0, 0, 0, 0, 0],
    );
    assert.equal(empty.daily.at(-1)?.day, utcDay(clock.now()));

    const a = await portal.createKey(s.account.id, "a");
    const b = await portal.createKey(s.account.id, "b");
    const today = utcDay(clock.now());
    for (const [k, op] of [
      [a, "leads"],
      [b, "trends"],
    ] as const) {
      const auth = await keys.authenticate(k.key);
      assert.ok(auth.ok);
      await limits.enforcer.admit(auth.caller);
      await store.recordUsage(k.info.id, today, op, 1);
    }
    const u = await portal.usage(s.account.id, 3);
    assert.deepEqual([u.used, u.limit, u.remaining], [2, 3, 1]);
    assert.deepEqual(Object.fromEntries(u.perOperation.map((o) => [o.operation, o.count])), {
      semantic_search: 0,
      vector_search: 0,
      trends: 1,
      leads: 1,
      monitors: 0,
      get_posts: 0,
      export_posts: 0,
      aggregate: 0,
    });
    assert.equal(u.daily.length, 3);
    assert.deepEqual(u.daily.at(-1), { day: today, count: 2 });
    assert.deepEqual(
      u.daily.slice(0, 2).map((d) => d.count),
      [0, 0],
    );
    assert.ok(u.periodEnd.getTime() > u.periodStart.getTime());

    // Another account's calls are not counted here.
    const other = await join(portal, { email: email(), password: PASSWORD, name: "Other" }, ADDRESS);
    assert.equal((await portal.usage(other.account.id, 1)).used, 0);
    await assert.rejects(portal.usage(s.account.id, 0), failure("invalid", "days"));
    await assert.rejects(portal.usage(s.account.id, 91), failure("invalid", "days"));
    await assert.rejects(portal.usage(s.account.id, 1.5), failure("invalid", "days"));
  });

  it("lists accounts only for admins, with active keys and calls this month", async () => {
    const { portal, store, clock } = await setup();
    const admin = await join(portal, { email: email(), password: PASSWORD, name: "Op" }, ADDRESS);
    const user = await join(portal, { email: email(), password: PASSWORD, name: "User" }, ADDRESS);
    await assert.rejects(portal.listAccounts(admin.account.id), failure("forbidden"));
    await assert.rejects(portal.listAccounts("acct_nobody"), failure("forbidden"));
    await store.setAdmin(admin.account.id, true);
    const k1 = await portal.createKey(user.account.id, "one");
    const k2 = await portal.createKey(user.account.id, "two");
    await portal.revokeKey(user.account.id, k2.info.id);
    await store.recordUsage(k1.info.id, utcDay(clock.now()), "leads", 4);
    await store.recordUsage(k2.info.id, utcDay(clock.now()), "trends", 1);
    const rows = await portal.listAccounts(admin.account.id);
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.deepEqual(
      { ...byId.get(user.account.id), createdAt: undefined },
      {
        id: user.account.id,
        name: "User",
        email: user.account.email,
        origin: "portal",
        emailVerified: false,
        isAdmin: false,
        plan: "free",
        createdAt: undefined,
        activeKeys: 1,
        callsThisMonth: 5,
      },
    );
    assert.equal(byId.get(admin.account.id)?.isAdmin, true);
    assert.equal(user.account.isAdmin, false);
    await assert.rejects(portal.listAccounts(user.account.id), failure("forbidden"));
  });

  it("never returns a password hash or the password from any method", async () => {
    const { portal, store } = await setup();
    const address = email();
    const up = await join(portal, { email: address, password: PASSWORD, name: "Ada" }, ADDRESS);
    await store.setAdmin(up.account.id, true);
    const key = await portal.createKey(up.account.id, "k");
    const results: unknown[] = [
      up,
      await portal.signIn({ email: address, password: PASSWORD }, ADDRESS),
      await portal.session(up.token),
      portal.plans(),
      await portal.changePlan(up.account.id, "free", URLS),
      await portal.listKeys(up.account.id),
      key,
      await portal.rotateKey(up.account.id, key.info.id),
      await portal.usage(up.account.id, 2),
      await portal.listAccounts(up.account.id),
    ];
    const stored = await store.getPasswordHash(up.account.id);
    assert.match(stored ?? "", /^scrypt\$32768\$8\$1\$/);
    for (const r of results) {
      const json = JSON.stringify(r);
      assert.equal(json.includes("scrypt"), false);
      assert.equal(json.includes(PASSWORD), false);
      assert.equal(/password/i.test(json), false);
    }
  });
}

describe("portal accounts on SQLite", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-portal-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  registerPortalSuite({
    async open() {
      const dataDir = path.join(root, `case-${++n}`);
      return { store: await openAccountsStore({ dataDir }), dataDir, databaseUrl: undefined };
    },
  });
});

const server = await startPostgres();
after(() => server.stop());

describe("portal accounts on PostgreSQL", { skip: server.skip }, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-portal-pg-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  registerPortalSuite({
    async open() {
      const databaseUrl = await server.createDatabase!();
      const dataDir = path.join(root, `case-${++n}`);
      return { store: await openAccountsStore({ dataDir, databaseUrl }), dataDir, databaseUrl };
    },
  });
});
