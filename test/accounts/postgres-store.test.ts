/**
 * The accounts store contract on a real PostgreSQL (started by test/harness/postgres.ts, or
 * DATABASE_URL_TEST), one fresh database per test.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { openPostgresStore } from "../../src/accounts/postgres-store.js";
import { startPostgres } from "../harness/postgres.js";
import { registerStoreContract } from "./store-contract.js";

const server = await startPostgres();
after(() => server.stop());

describe("PostgreSQL accounts store", { skip: server.skip }, () => {
  registerStoreContract(async () => {
    const databaseUrl = await server.createDatabase!();
    return {
      open: (options = {}) =>
        options.migrations === undefined
          ? openAccountsStore({ dataDir: "/nonexistent", databaseUrl })
          : openPostgresStore(databaseUrl, options),
    };
  });

  it("is chosen by the factory when a database URL is given", async () => {
    const store = await openAccountsStore({ dataDir: "/nonexistent", databaseUrl: server.url! });
    try {
      assert.equal(store.kind, "postgres");
    } finally {
      await store.close();
    }
  });

  it("recovers by itself when the server ends its connections", async () => {
    const url = await server.createDatabase!();
    const store = await openPostgresStore(url, { connectTimeoutMs: 2_000 });
    const admin = new pg.Client(server.url!);
    await admin.connect();
    try {
      // Ending every session of the store's database is what a server restart looks like to it.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [
        new URL(url).pathname.slice(1),
      ]);
      await new Promise((r) => setTimeout(r, 100));
      // The dropped idle connection is replaced: the store recovers by itself.
      await store.ping();
    } finally {
      await admin.end();
      await store.close();
    }
  });
});
