/**
 * The accounts store contract on SQLite, one temp directory per test, plus what only the SQLite
 * store promises: WAL mode and the file name in the data directory.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { openSqliteStore, SQLITE_FILE_NAME } from "../../src/accounts/sqlite-store.js";
import { registerStoreContract } from "./store-contract.js";

const run = promisify(execFile);
const STORE_MODULE = new URL("../../src/accounts/sqlite-store.ts", import.meta.url).href;

const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-sqlite-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

describe("SQLite accounts store", () => {
  registerStoreContract(async () => {
    const dataDir = path.join(root, `case-${++n}`);
    return {
      open: (options = {}) =>
        options.migrations === undefined
          ? openAccountsStore({ dataDir })
          : openSqliteStore(path.join(dataDir, SQLITE_FILE_NAME), options),
    };
  });

  it("lives in accounts.sqlite in the data directory, in WAL mode", async () => {
    const dataDir = path.join(root, "layout", "nested");
    const store = await openAccountsStore({ dataDir, databaseUrl: undefined });
    assert.equal(store.kind, "sqlite");
    await store.close();
    const db = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true });
    try {
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      const versions = db.prepare("SELECT version FROM schema_version ORDER BY version").all() as { version: number }[];
      assert.deepEqual(
        versions.map((v) => v.version),
        [1, 2, 3, 4],
      );
    } finally {
      db.close();
    }
  });

  it("counts exactly when several processes write the same file at once (WAL + busy timeout)", async () => {
    const file = path.join(root, "multi", SQLITE_FILE_NAME);
    const store = await openSqliteStore(file);
    try {
      await store.createAccount({ id: "acct_mp", name: "mp", createdAt: new Date() });
      await store.insertKey({
        id: "multiprocess",
        accountId: "acct_mp",
        name: "mp",
        keyHash: "00".repeat(32),
        displayPrefix: "ts_live_multiprocess_0000",
        createdAt: new Date(),
      });
      const writer = `
        const { openSqliteStore } = await import(${JSON.stringify(STORE_MODULE)});
        const store = await openSqliteStore(process.argv[1]);
        for (let i = 0; i < 1000; i++) await store.recordUsage("multiprocess", "2026-04-01", "leads", 1);
        await store.close();`;
      const child = () =>
        run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", writer, file], { timeout: 60_000 });
      // This process keeps writing for as long as the children do, so all three overlap.
      let childrenDone = false;
      const children = Promise.all([child(), child()]).finally(() => (childrenDone = true));
      let own = 0;
      while (!childrenDone) {
        await store.recordUsage("multiprocess", "2026-04-01", "leads", 1);
        own += 1;
        await new Promise((r) => setTimeout(r, 1));
      }
      await children;
      assert.ok(own > 0);
      assert.deepEqual(await store.usageBetween("multiprocess", "2026-04-01", "2026-04-01"), [
        { keyId: "multiprocess", day: "2026-04-01", operation: "leads", count: 2000 + own },
      ]);
    } finally {
      await store.close();
    }
  });
});
