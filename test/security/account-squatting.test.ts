/**
 * Issue 45, finding 1: a portal sign-up under a customer's name must not capture the keys an
 * operator issues by that name. A real service (portal over HTTP) and real `threadsight` CLI
 * processes on one SQLite data directory.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { submitPortalForm } from "../harness/portal-form.js";
import { runCli } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

describe("account-name squatting", () => {
  let svc: RunningService;
  let env: Record<string, string>;
  before(async () => {
    svc = await startService({ env: { PORTAL_COOKIE_SECURE: "false" } });
    env = { THREADSIGHT_DATA_DIR: svc.dataDir, DATABASE_URL: "", REDIS_URL: "" };
  });
  after(() => svc.stop());

  async function accountsNamed(name: string) {
    const store = await openAccountsStore({ dataDir: svc.dataDir });
    try {
      return await store.findAccountsByName(name);
    } finally {
      await store.close();
    }
  }

  it("refuses `keys create --account NAME` when a portal sign-up holds the name, naming the ids", async () => {
    const signUp = await submitPortalForm(svc.url, "/portal/sign-up", {
      name: "acme-corp",
      email: "squatter@example.com",
      password: "correct horse battery",
    });
    assert.equal(signUp.status, 303, signUp.body);
    const [squatter] = await accountsNamed("acme-corp");
    assert.equal(squatter?.origin, "portal");

    const byName = await runCli(
      ["keys", "create", "--plan", "enterprise", "--name", "acme-prod", "--account", "acme-corp", "--json"],
      env,
    );
    assert.equal(byName.code, 2, byName.stdout);
    assert.equal(byName.stdout, "", "no key is printed");
    assert.match(
      byName.stderr,
      new RegExp(`the account named "acme-corp" was made by a portal sign-up: ${squatter!.id} \\(portal sign-up\\)`),
    );
    assert.match(byName.stderr, /name the account by its id/);

    // Its id does not help either while its email is unproved.
    const byId = await runCli(
      ["keys", "create", "--plan", "enterprise", "--name", "acme-prod", "--account", squatter!.id],
      env,
    );
    assert.equal(byId.code, 1);
    assert.match(byId.stderr, /was made by a portal sign-up and its email squatter@example.com is not verified/);

    const store = await openAccountsStore({ dataDir: svc.dataDir });
    try {
      assert.deepEqual(await store.listKeys({ accountId: squatter!.id }), [], "no key reached the squatter");
    } finally {
      await store.close();
    }
  });

  it("lets the operator make the customer's account and issue to it by id; the shared name stays refused", async () => {
    const made = await runCli(["accounts", "create", "acme-corp", "--json"], env);
    assert.equal(made.code, 0, made.stderr);
    const { id } = JSON.parse(made.stdout) as { id: string };
    // Keys follow their account's plan: the operator moves the account, then issues the key.
    const moved = await runCli(["accounts", "set-plan", id, "enterprise"], env);
    assert.equal(moved.code, 0, moved.stderr);
    const key = await runCli(
      ["keys", "create", "--plan", "enterprise", "--name", "acme-prod", "--account", id, "--json"],
      env,
    );
    assert.equal(key.code, 0, key.stderr);
    const named = await accountsNamed("acme-corp");
    assert.equal(named.length, 2);
    const again = await runCli(
      ["keys", "create", "--plan", "enterprise", "--name", "x", "--account", "acme-corp"],
      env,
    );
    assert.equal(again.code, 2);
    assert.match(again.stderr, /2 accounts are named "acme-corp"/);
    for (const a of named) assert.match(again.stderr, new RegExp(a.id));
  });

  it("still addresses a unique operator-made name, creating it on first use", async () => {
    const first = await runCli(
      ["keys", "create", "--plan", "starter", "--name", "a", "--account", "globex", "--json"],
      env,
    );
    assert.equal(first.code, 0, first.stderr);
    const second = await runCli(
      ["keys", "create", "--plan", "starter", "--name", "b", "--account", "globex", "--json"],
      env,
    );
    assert.equal(second.code, 0, second.stderr);
    const named = await accountsNamed("globex");
    assert.equal(named.length, 1);
    assert.equal(named[0]?.origin, "operator");
  });
});
