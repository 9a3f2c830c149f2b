/**
 * `threadsight accounts` as an operator runs it: real CLI processes (test/harness/cli-entry.ts)
 * on a SQLite data directory and on a real PostgreSQL, checked against the store they share.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { utcDay } from "../../src/accounts/usage-args.js";
import { startPostgres } from "../harness/postgres.js";
import { runCli } from "../harness/seed.js";

interface Location {
  dataDir: string;
  databaseUrl: string | undefined;
}

function envOf(at: Location): Record<string, string> {
  return { THREADSIGHT_DATA_DIR: at.dataDir, DATABASE_URL: at.databaseUrl ?? "", REDIS_URL: "" };
}

/** Two accounts: a portal-style one with an email, and a CLI one with two keys and usage. */
async function seed(at: Location) {
  const store = await openAccountsStore(at);
  try {
    const portal = await store.createAccount({
      id: "acct_portal0000000001",
      name: "Ada",
      email: "Ada@Example.com",
      plan: "pro",
      origin: "portal",
      createdAt: new Date("2026-01-01T00:00:00Z"),
    });
    const keys = createKeyService({ store, cacheTtlMs: 0 });
    const a = await keys.createKey({ accountName: "ci bot", plan: "starter", name: "a" });
    const b = await keys.createKey({ accountId: a.account.id, plan: "starter", name: "b" });
    await keys
      .createKey({ accountId: a.account.id, plan: "starter", name: "gone" })
      .then((k) => keys.revokeKey(k.info.id));
    const today = utcDay(new Date());
    await store.recordUsage(a.info.id, today, "leads", 3);
    await store.recordUsage(b.info.id, today, "trends", 2);
    return { portal, cli: a.account };
  } finally {
    await store.close();
  }
}

/** Proves an account's email the way the link does: a stored token, spent once. */
async function verify(at: Location, accountId: string): Promise<void> {
  const store = await openAccountsStore(at);
  try {
    const now = new Date();
    await store.createEmailVerification({
      tokenHash: "d4".repeat(32),
      accountId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    assert.equal(await store.consumeEmailVerification("d4".repeat(32), now), accountId);
  } finally {
    await store.close();
  }
}

function registerCliSuite(newLocation: () => Promise<Location>): void {
  it("lists every account with plan, admin flag, active keys and calls this month", async () => {
    const at = await newLocation();
    const { portal, cli } = await seed(at);
    const res = await runCli(["accounts", "list", "--json"], envOf(at));
    assert.equal(res.code, 0, res.stderr);
    const rows = JSON.parse(res.stdout) as Record<string, unknown>[];
    assert.deepEqual(
      rows.map((r) => ({ ...r, created_at: undefined })),
      [
        {
          id: portal.id,
          name: "Ada",
          email: "ada@example.com",
          origin: "portal",
          email_verified: false,
          plan: "pro",
          is_admin: false,
          active_keys: 0,
          calls_this_month: 0,
          created_at: undefined,
        },
        {
          id: cli.id,
          name: "ci bot",
          email: null,
          origin: "operator",
          email_verified: false,
          plan: "starter",
          is_admin: false,
          active_keys: 2,
          calls_this_month: 5,
          created_at: undefined,
        },
      ],
    );
    const text = await runCli(["accounts", "list"], envOf(at));
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split("\n");
    assert.match(
      lines[0] ?? "",
      /^ID\s+NAME\s+EMAIL\s+ORIGIN\s+VERIFIED\s+PLAN\s+ADMIN\s+ACTIVE KEYS\s+CALLS THIS MONTH$/,
    );
    assert.match(lines[2] ?? "", new RegExp(`^${cli.id}\\s+ci bot\\s+-\\s+operator\\s+-\\s+starter\\s+no\\s+2\\s+5$`));
  });

  it("set-plan moves the account and all its keys; keys create refuses another plan", async () => {
    const at = await newLocation();
    const { cli } = await seed(at);
    const refused = await runCli(
      ["keys", "create", "--account", cli.id, "--plan", "enterprise", "--name", "more"],
      envOf(at),
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is on the starter plan .*accounts set-plan/);
    const moved = await runCli(["accounts", "set-plan", cli.id, "pro", "--json"], envOf(at));
    assert.equal(moved.code, 0, moved.stderr);
    assert.deepEqual(JSON.parse(moved.stdout), { id: cli.id, previous_plan: "starter", plan: "pro", keys: 2 });
    const listed = await runCli(["keys", "list", "--account", cli.id, "--json"], envOf(at));
    assert.deepEqual([...new Set((JSON.parse(listed.stdout) as { plan: string }[]).map((k) => k.plan))], ["pro"]);
    const more = await runCli(["keys", "create", "--account", cli.id, "--name", "more", "--json"], envOf(at));
    assert.equal(more.code, 0, more.stderr);
    assert.equal((JSON.parse(more.stdout) as { plan: string }).plan, "pro");
    const bad = await runCli(["accounts", "set-plan", cli.id, "platinum"], envOf(at));
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /PLAN must be one of/);
    const nobody = await runCli(["accounts", "set-plan", "acct_nobody", "pro"], envOf(at));
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /no account with id "acct_nobody"/);
  });

  it("grants and revokes admin by email or id, and refuses unknown accounts and bad usage", async () => {
    const at = await newLocation();
    const { portal } = await seed(at);
    // Anyone can sign up with a colleague's address: until it is proved, no admin grant.
    const early = await runCli(["accounts", "admin", "ADA@example.com"], envOf(at));
    assert.equal(early.code, 1);
    assert.match(
      early.stderr,
      new RegExp(`account ${portal.id} was made by a portal sign-up and its email ada@example.com is not verified`),
    );
    const byId = await runCli(["accounts", "admin", portal.id], envOf(at));
    assert.equal(byId.code, 1, "the id does not bypass verification");
    await verify(at, portal.id);
    const granted = await runCli(["accounts", "admin", "ADA@example.com", "--json"], envOf(at));
    assert.equal(granted.code, 0, granted.stderr);
    assert.deepEqual(JSON.parse(granted.stdout), { id: portal.id, email: "ada@example.com", is_admin: true });
    const check = async (): Promise<boolean | undefined> => {
      const store = await openAccountsStore(at);
      try {
        return (await store.getAccount(portal.id))?.isAdmin;
      } finally {
        await store.close();
      }
    };
    assert.equal(await check(), true);
    const revoked = await runCli(["accounts", "admin", portal.id, "--revoke"], envOf(at));
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /no longer an operator/);
    assert.equal(await check(), false);

    const unknown = await runCli(["accounts", "admin", "nobody@example.com"], envOf(at));
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no account with email "nobody@example.com"/);
    const missing = await runCli(["accounts", "admin"], envOf(at));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /EMAIL or id/);
    const created = await runCli(["accounts", "create", "Ada", "--json"], envOf(at));
    assert.equal(created.code, 0, created.stderr);
    const made = JSON.parse(created.stdout) as { id: string; name: string; origin: string };
    assert.equal(made.name, "Ada");
    assert.equal(made.origin, "operator");
    assert.notEqual(made.id, portal.id, "create always makes a new account");
    const blank = await runCli(["accounts", "create", " "], envOf(at));
    assert.equal(blank.code, 2);
    assert.match(blank.stderr, /NAME/);
    const badFlag = await runCli(["accounts", "list", "--jsn"], envOf(at));
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /--jsn/);
  });
}

describe("threadsight accounts on SQLite", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-accounts-cli-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  registerCliSuite(async () => ({ dataDir: path.join(root, `case-${++n}`), databaseUrl: undefined }));

  it("is listed in the command's help", async () => {
    const res = await runCli(["--help"], {});
    assert.equal(res.code, 0);
    assert.match(res.stdout, /accounts\s+list accounts; grant or revoke operator/);
  });
});

const server = await startPostgres();
after(() => server.stop());

describe("threadsight accounts on PostgreSQL", { skip: server.skip }, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-accounts-cli-pg-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  registerCliSuite(async () => ({ dataDir: root, databaseUrl: await server.createDatabase!() }));
});
