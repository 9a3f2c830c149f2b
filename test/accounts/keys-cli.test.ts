/**
 * `threadsight keys` as other tools drive it: real processes (node + tsx on src/cli/main.ts),
 * the --json shapes exactly, exit codes and error messages. Keys the CLI prints are then checked
 * with the key service on the same store, so "created" means "works".
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { startPostgres } from "../harness/postgres.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = new URL("../../src/cli/main.ts", import.meta.url).href;
const ENTRY = `import { main } from ${JSON.stringify(MAIN)}; process.exitCode = await main(process.argv.slice(1));`;
const GRACE_S = 7200;

const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-cli-"));
after(() => rmSync(root, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `threadsight <args>` against a store location. */
function threadsight(args: string[], store: { dataDir: string; databaseUrl?: string }): Promise<Result> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    THREADSIGHT_DATA_DIR: store.dataDir,
    KEY_ROTATION_GRACE_SECONDS: String(GRACE_S),
  };
  delete env.DATABASE_URL;
  if (store.databaseUrl !== undefined) env.DATABASE_URL = store.databaseUrl;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", ENTRY, ...args],
      { cwd: REPO, env, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Parses stdout that must be exactly one JSON value on one line. */
function onlyJson(r: Result): unknown {
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.ok(
    r.stdout.endsWith("\n") && r.stdout.indexOf("\n") === r.stdout.length - 1,
    `one line expected: ${r.stdout}`,
  );
  return JSON.parse(r.stdout);
}

const KEY = /^ts_live_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/;

async function authenticate(store: { dataDir: string; databaseUrl?: string }, key: string) {
  const s = await openAccountsStore(store);
  try {
    return await createKeyService({ store: s, cacheTtlMs: 0 }).authenticate(key);
  } finally {
    await s.close();
  }
}

describe("threadsight keys (SQLite)", () => {
  const store = { dataDir: path.join(root, "data") };

  it("create --json, list --json, rotate --json, revoke: exact shapes, and the keys work", async () => {
    const created = onlyJson(
      await threadsight(["keys", "create", "--plan", "starter", "--name", "ci", "--json"], store),
    ) as Record<string, string>;
    assert.deepEqual(Object.keys(created).sort(), ["id", "key", "name", "plan"]);
    assert.match(created.key!, KEY);
    assert.ok(created.key!.startsWith(`ts_live_${created.id}_`));
    assert.equal(created.plan, "starter");
    assert.equal(created.name, "ci");
    const auth = await authenticate(store, created.key!);
    assert.ok(auth.ok);
    assert.equal(auth.caller.plan, "starter");

    const listed = onlyJson(await threadsight(["keys", "list", "--json"], store)) as Record<string, unknown>[];
    assert.equal(listed.length, 1);
    const [row] = listed;
    assert.equal(row?.id, created.id);
    assert.equal(row?.status, "active");
    assert.equal(row?.plan, "starter");
    assert.equal("key" in (row ?? {}), false);
    const secret = created.key!.slice(-28);
    const listedText = (await threadsight(["keys", "list"], store)).stdout;
    assert.match(listedText, new RegExp(created.id!));
    assert.equal(listedText.includes(secret), false, "list must never print the secret");

    const before = Date.now();
    const rotated = onlyJson(await threadsight(["keys", "rotate", created.id!, "--json"], store)) as Record<
      string,
      string
    >;
    assert.deepEqual(Object.keys(rotated).sort(), ["id", "key", "name", "old_key_expires_at", "old_key_id", "plan"]);
    assert.match(rotated.key!, KEY);
    assert.equal(rotated.old_key_id, created.id);
    assert.equal(rotated.plan, "starter");
    assert.equal(rotated.name, "ci");
    const expiresAt = Date.parse(rotated.old_key_expires_at!);
    assert.ok(
      expiresAt >= before + GRACE_S * 1000 && expiresAt <= Date.now() + GRACE_S * 1000,
      rotated.old_key_expires_at,
    );
    assert.equal((await authenticate(store, rotated.key!)).ok, true);
    assert.equal((await authenticate(store, created.key!)).ok, true, "old key works during the grace period");

    const revoked = await threadsight(["keys", "revoke", rotated.id!], store);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`Revoked key ${rotated.id}`));
    assert.deepEqual(await authenticate(store, rotated.key!), { ok: false, failure: "revoked" });

    const statuses = (
      onlyJson(await threadsight(["keys", "list", "--json"], store)) as { id: string; status: string }[]
    ).map((k) => [k.id, k.status]);
    assert.deepEqual(statuses, [
      [created.id, "rotating"],
      [rotated.id, "revoked"],
    ]);
  });

  it("prints the key once in text mode, with where it belongs", async () => {
    const r = await threadsight(["keys", "create", "--plan", "pro", "--name", "laptop", "--account", "team-a"], store);
    assert.equal(r.code, 0, r.stderr);
    const keys = r.stdout.split("\n").filter((l) => KEY.test(l));
    assert.equal(keys.length, 1);
    assert.match(r.stdout, /plan pro, name "laptop"\) for account team-a \(acct_/);
  });

  it("answers usage errors with exit 2 and a message naming the flag, printing nothing on stdout", async () => {
    const cases: [string[], RegExp][] = [
      [["keys", "create", "--plan", " ", "--name", "x"], /--plan must not be blank/],
      [
        ["keys", "create", "--plan", "gold", "--name", "x"],
        /--plan must be one of free, lite, starter, pro, enterprise, got "gold"/,
      ],
      [["keys", "create", "--plan", "pro"], /--name is required/],
      [["keys", "create", "--plan", "pro", "--name", "  "], /--name must not be blank/],
      [["keys", "create", "--plna", "pro", "--name", "x"], /--plna/],
      [["keys", "revoke"], /KEY_ID/],
      [["keys", "rotate", "a", "b"], /unexpected argument "b"/],
      [["keys", "erase"], /unknown subcommand "erase"/],
    ];
    const dataDir = path.join(root, "usage");
    const results = await Promise.all(cases.map(([args]) => threadsight(args, { dataDir })));
    results.forEach((r, i) => {
      const [args, pattern] = cases[i]!;
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, pattern, args.join(" "));
      assert.equal(r.stdout, "", args.join(" "));
    });
    assert.equal(existsSync(dataDir), false, "a usage error must not create a store");
  });

  it("fails with exit 1 for an unknown key id", async () => {
    const r = await threadsight(["keys", "revoke", "nosuchkey123"], store);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no key with id "nosuchkey123"/);
    assert.equal(r.stdout, "");
  });
});

const pg = await startPostgres();
after(() => pg.stop());

describe("threadsight keys (PostgreSQL via DATABASE_URL)", { skip: pg.skip }, () => {
  it("creates and lists keys in PostgreSQL, not in the data directory", async () => {
    const store = { dataDir: path.join(root, "unused"), databaseUrl: pg.url! };
    const created = onlyJson(
      await threadsight(["keys", "create", "--plan", "lite", "--name", "pg", "--json"], store),
    ) as Record<string, string>;
    assert.match(created.key!, KEY);
    const listed = onlyJson(await threadsight(["keys", "list", "--json"], store)) as { id: string }[];
    assert.deepEqual(
      listed.map((k) => k.id),
      [created.id],
    );
    assert.equal((await authenticate(store, created.key!)).ok, true);
    const sqlite = onlyJson(await threadsight(["keys", "list", "--json"], { dataDir: store.dataDir })) as unknown[];
    assert.deepEqual(sqlite, []);
  });
});
