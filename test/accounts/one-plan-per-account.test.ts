/**
 * One plan per account, on SQLite and on a real PostgreSQL: the migration that takes the plan off
 * stored keys, and several keys of one account drawing on one quota exactly, whatever the order
 * of key creation and plan changes. The usage report (what GetUsage, /api/v1/usage and
 * `threadsight usage` print) and the portal's usage view must agree with the counts.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { Caller } from "../../src/accounts/caller.js";
import type { KeyService } from "../../src/accounts/key-service.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import type { Migration } from "../../src/accounts/migrations.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/accounts/migrations.js";
import { openPostgresStore } from "../../src/accounts/postgres-store.js";
import { openSqliteStore } from "../../src/accounts/sqlite-store.js";
import type { AccountsStore } from "../../src/accounts/store.js";
import { utcDay } from "../../src/accounts/usage-args.js";
import { LimitExceededError } from "../../src/limits/limit-exceeded.js";
import type { Limits } from "../../src/limits/open-limits.js";
import { usageReport } from "../../src/limits/usage-report.js";
import { createPortalService } from "../../src/portal/portal-accounts.js";
import { startPostgres } from "../harness/postgres.js";
import { catalogOf, limitsFor } from "../limits/fixtures.js";

// Small monthly quotas so a test can exhaust them; rates high enough never to interfere.
const CATALOG = catalogOf([
  { id: "free", name: "Free", api_access: true, quota: 3, quota_period: "calendar_month", rate_per_minute: 1000 },
  { id: "lite", name: "Lite", api_access: true, quota: 7, quota_period: "calendar_month", rate_per_minute: 1000 },
  {
    id: "starter",
    name: "Starter",
    api_access: true,
    quota: 12,
    quota_period: "calendar_month",
    rate_per_minute: 1000,
  },
]);

/** Where a suite's data lives, opened with an optional migration list. */
interface Backend {
  /** A fresh location: open() may be called again on the same data. */
  location(): Promise<{
    open(migrations?: readonly Migration[]): Promise<AccountsStore>;
    dataDir: string;
    databaseUrl: string | undefined;
  }>;
}

/** Version 2 plus rows as a build before version 3 wrote them: keys with plans of their own. */
function seededV2(backend: "sqlite" | "postgres"): Migration[] {
  const t = backend === "sqlite" ? (ms: number) => String(ms) : (ms: number) => `to_timestamp(${ms / 1000})`;
  const key = (id: string, account: string, plan: string, revoked: boolean) =>
    `INSERT INTO api_keys (id, account_id, name, plan, key_hash, display_prefix, created_at, revoked_at)
     VALUES ('${id}', '${account}', '${id}', '${plan}', '${"ab".repeat(32)}', 'ts_live_${id}', ${t(1_700_000_000_000)}, ${revoked ? t(1_700_000_100_000) : "NULL"});`;
  const account = (id: string, plan: string | null) =>
    `INSERT INTO accounts (id, name, created_at, plan) VALUES ('${id}', '${id}', ${t(1_700_000_000_000)}, ${plan === null ? "NULL" : `'${plan}'`});`;
  const seed = [
    // Made by the CLI (no plan): free, pro and a revoked enterprise key -> pro.
    account("acct_cli", null),
    key("cli000000001", "acct_cli", "free", false),
    key("cli000000002", "acct_cli", "pro", false),
    key("cli000000003", "acct_cli", "enterprise", true),
    // Portal account on starter with an operator-issued lite key -> stays starter.
    account("acct_portal", "starter"),
    key("por000000001", "acct_portal", "lite", false),
    // Portal account on lite with an operator-issued enterprise key -> enterprise.
    account("acct_upkey", "lite"),
    key("upk000000001", "acct_upkey", "enterprise", false),
    // Nothing to go by -> free; only revoked keys -> free.
    account("acct_empty", null),
    account("acct_revoked", null),
    key("rev000000001", "acct_revoked", "pro", true),
    `INSERT INTO usage (key_id, day, operation, count) VALUES ('cli000000001', '2026-03-01', 'leads', 4);`,
  ].join("\n");
  const v2 = MIGRATIONS.find((m) => m.version === 2)!;
  return [MIGRATIONS.find((m) => m.version === 1)!, { ...v2, [backend]: v2[backend] + seed }];
}

function registerSuite(name: "sqlite" | "postgres", backend: Backend): void {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  async function setup(): Promise<{ store: AccountsStore; keys: KeyService; limits: Limits }> {
    const where = await backend.location();
    const store = await where.open();
    const keys = createKeyService({ store, cacheTtlMs: 0 });
    const limits = await limitsFor(CATALOG, { dataDir: where.dataDir, databaseUrl: where.databaseUrl });
    cleanups.push(async () => {
      await limits.close();
      await store.close();
    });
    return { store, keys, limits };
  }

  /** Admits one call of `secret` as the server would: authenticate, admit, record the usage row. */
  async function call(
    ctx: { store: AccountsStore; keys: KeyService; limits: Limits },
    secret: string,
  ): Promise<boolean> {
    const auth = await ctx.keys.authenticate(secret);
    assert.ok(auth.ok, `key refused: ${auth.ok ? "" : auth.failure}`);
    try {
      await ctx.limits.enforcer.admit(auth.caller);
    } catch (err) {
      if (err instanceof LimitExceededError) return false;
      throw err;
    }
    await ctx.store.recordUsage(auth.caller.keyId, utcDay(new Date()), "leads", 1);
    return true;
  }

  async function callerOf(keys: KeyService, secret: string): Promise<Caller> {
    const auth = await keys.authenticate(secret);
    assert.ok(auth.ok);
    return auth.caller;
  }

  /** Usage as GetUsage / REST / CLI and the portal dashboard report it, for each key given. */
  async function assertUsageAgrees(
    ctx: { store: AccountsStore; keys: KeyService; limits: Limits },
    accountId: string,
    secrets: string[],
    used: number,
    limit: number,
  ): Promise<void> {
    for (const secret of secrets) {
      const report = await usageReport(
        { enforcer: ctx.limits.enforcer, store: ctx.store },
        await callerOf(ctx.keys, secret),
      );
      assert.equal(report.used, used);
      assert.equal(report.limit, limit);
      assert.equal(report.remaining, limit - used);
      assert.equal(
        report.operations.reduce((a, o) => a + o.count, 0),
        used,
        "per-operation counts add up to used",
      );
    }
    const portal = createPortalService({
      store: ctx.store,
      keys: ctx.keys,
      enforcer: ctx.limits.enforcer,
      catalog: CATALOG,
    });
    const dash = await portal.usage(accountId, 1);
    assert.equal(dash.used, used);
    assert.equal(dash.limit, limit);
    assert.equal(
      dash.perOperation.reduce((a, o) => a + o.count, 0),
      used,
    );
    assert.equal(
      dash.daily.reduce((a, d) => a + d.count, 0),
      used,
    );
  }

  describe(`one plan per account (${name})`, () => {
    it("migrates keys that carried their own plan: the account takes the highest of its plan and its live keys'", async () => {
      const where = await backend.location();
      // SQLite prepares today's statements at open, which a version-2 schema cannot satisfy, so
      // that open fails after its migrations committed; PostgreSQL opens fine.
      await where.open(seededV2(name)).then(
        (s) => s.close(),
        () => undefined,
      );
      const store = await where.open();
      try {
        assert.equal(await store.schemaVersion(), LATEST_SCHEMA_VERSION);
        const plans = Object.fromEntries((await store.listAccounts()).map((a) => [a.id, a.plan]));
        assert.deepEqual(plans, {
          acct_cli: "pro",
          acct_portal: "starter",
          acct_upkey: "enterprise",
          acct_empty: "free",
          acct_revoked: "free",
        });
        for (const k of await store.listKeys()) {
          assert.equal(k.plan, plans[k.accountId], `key ${k.id} follows account ${k.accountId}`);
        }
        assert.deepEqual(await store.usageBetween("cli000000001", "2026-03-01", "2026-03-01"), [
          { keyId: "cli000000001", day: "2026-03-01", operation: "leads", count: 4 },
        ]);
        // Reopening applies nothing again.
        await store.close();
        const again = await where.open();
        assert.equal((await again.getAccount("acct_cli"))?.plan, "pro");
        await again.close();
      } finally {
        await store.close();
      }
    });

    it("keys created before and after a plan change share one quota exactly", async () => {
      const ctx = await setup();
      const a = await ctx.keys.createKey({ accountName: "acme", plan: "lite", name: "a" });
      const b = await ctx.keys.createKey({ accountId: a.account.id, name: "b" });
      let admitted = 0;
      for (let i = 0; i < 10; i++) if (await call(ctx, i % 2 === 0 ? a.key : b.key)) admitted += 1;
      assert.equal(admitted, 7, "two lite keys: 7 calls in all, not 7 each");
      await assertUsageAgrees(ctx, a.account.id, [a.key, b.key], 7, 7);

      // A key on another plan is refused, and creating keys buys nothing.
      await assert.rejects(
        ctx.keys.createKey({ accountId: a.account.id, plan: "starter", name: "c" }),
        /is on the lite plan/,
      );
      const c = await ctx.keys.createKey({ accountId: a.account.id, name: "c" });
      assert.equal(await call(ctx, c.key), false);

      await ctx.keys.setAccountPlan(a.account.id, "starter");
      const d = await ctx.keys.createKey({ accountId: a.account.id, plan: "starter", name: "d" });
      admitted = 0;
      for (let i = 0; i < 12; i++) if (await call(ctx, [a.key, b.key, c.key, d.key][i % 4]!)) admitted += 1;
      assert.equal(admitted, 5, "starter's 12 include the 7 already spent");
      await assertUsageAgrees(ctx, a.account.id, [a.key, b.key, c.key, d.key], 12, 12);
    });

    it("keys created after a plan change share one quota exactly under concurrent calls", async () => {
      const ctx = await setup();
      const first = await ctx.keys.createKey({ accountName: "beta", name: "first" });
      assert.equal(first.account.plan, "free");
      await ctx.keys.setAccountPlan(first.account.id, "starter");
      const more = await Promise.all(
        ["x", "y", "z"].map((n) => ctx.keys.createKey({ accountId: first.account.id, name: n })),
      );
      const secrets = [first.key, ...more.map((m) => m.key)];
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => call(ctx, secrets[(i * 7) % secrets.length]!)),
      );
      assert.equal(results.filter(Boolean).length, 12);
      await assertUsageAgrees(ctx, first.account.id, secrets, 12, 12);
      // A downgrade to a smaller quota leaves nothing to spend.
      await ctx.keys.setAccountPlan(first.account.id, "lite");
      assert.equal(await call(ctx, more[0]!.key), false);
    });
  });
}

registerSuite("sqlite", {
  async location() {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-oneplan-"));
    const file = path.join(dataDir, "accounts.sqlite");
    return {
      dataDir,
      databaseUrl: undefined,
      open: (migrations) => openSqliteStore(file, migrations ? { migrations } : {}),
    };
  },
});

const server = await startPostgres();
after(() => server.stop());
if (server.skip === undefined) {
  registerSuite("postgres", {
    async location() {
      const databaseUrl = await server.createDatabase();
      const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-oneplan-pg-"));
      return {
        dataDir,
        databaseUrl,
        open: (migrations) => openPostgresStore(databaseUrl, migrations ? { migrations } : {}),
      };
    },
  });
} else {
  describe("one plan per account (postgres)", { skip: server.skip }, () => {
    it("needs PostgreSQL", () => undefined);
  });
}
