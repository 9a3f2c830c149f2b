/** `threadsight plans list` and `threadsight usage KEY_ID`, run as child processes like a user would. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { utcDay } from "../../src/accounts/usage-args.js";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import { limitsFor, tempDir } from "./fixtures.js";

const run = promisify(execFile);

async function threadsight(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `const { main } = await import("./src/cli/main.ts"); process.exitCode = await main(${JSON.stringify(args)});`;
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("threadsight plans / usage", () => {
  const dir = tempDir();
  const env = { THREADSIGHT_DATA_DIR: dir, REDIS_URL: "", DATABASE_URL: "" };
  let keyId = "";
  before(async () => {
    // Spend 2 calls of a Lite key through the real limits, as the server would.
    const store = await openAccountsStore({ dataDir: dir });
    const { info } = await createKeyService({ store }).createKey({ accountName: "cli", plan: "lite", name: "t" });
    keyId = info.id;
    const limits = await limitsFor(loadPlanCatalog("config/plans/variant-b.json"), { dataDir: dir });
    const caller = { keyId, accountId: info.accountId, plan: info.plan, overrides: info.overrides };
    for (let i = 0; i < 2; i++) {
      await limits.enforcer.admit(caller);
      await store.recordUsage(keyId, utcDay(new Date()), "trends", 1);
    }
    await limits.close();
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("plans list --json prints the catalog in force", async () => {
    const r = await threadsight(["plans", "list", "--json"], { ...env, PLANS_FILE: "config/plans/variant-a.json" });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { catalog: string; plans: { id: string; api_access: boolean }[] };
    assert.equal(doc.catalog, "variant-a");
    assert.deepEqual(
      doc.plans.map((p) => [p.id, p.api_access]),
      [
        ["free", false],
        ["pro", true],
        ["enterprise", true],
      ],
    );
  });

  it("plans with a bad catalog exits 1 naming the file", async () => {
    const r = await threadsight(["plans", "list"], { ...env, PLANS_FILE: "package.json" });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /package\.json: "catalog" must be a non-empty string/);
  });

  it("usage KEY_ID --json reports the counters and per-operation rows", async () => {
    const r = await threadsight(["usage", keyId, "--json"], env);
    assert.equal(r.code, 0, r.stderr);
    const u = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(u.plan, "lite");
    assert.equal(u.used, 2);
    assert.equal(u.limit, 500);
    assert.equal(u.remaining, 498);
    assert.equal(u.unlimited, false);
    assert.deepEqual(u.operations, [
      { operation: "semantic_search", count: 0 },
      { operation: "vector_search", count: 0 },
      { operation: "trends", count: 2 },
      { operation: "leads", count: 0 },
      { operation: "monitors", count: 0 },
      { operation: "get_posts", count: 0 },
      { operation: "export_posts", count: 0 },
      { operation: "aggregate", count: 0 },
    ]);
  });

  it("usage of an unknown key exits 1; a missing KEY_ID exits 2", async () => {
    const unknown = await threadsight(["usage", "key_nope"], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no key with id "key_nope"/);
    assert.equal((await threadsight(["usage"], env)).code, 2);
  });
});
