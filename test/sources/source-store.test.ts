/**
 * One contract suite for both source stores (SQLite in a temp dir, PostgreSQL on a real server
 * from the harness): add/list/remove/pause/resume, the lease rules (one owner at a time, a
 * cursor saved only under a held lease, an expired lease taken over), and health bookkeeping.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openPostgresSourceStore } from "../../src/sources/store/postgres-source-store.js";
import type { SourceStore } from "../../src/sources/store/source-store.js";
import { healthOf, SourceExistsError } from "../../src/sources/store/source-store.js";
import { openSqliteSourceStore } from "../../src/sources/store/sqlite-source-store.js";
import type { PostgresDatabase, PostgresUnavailable } from "../harness/postgres.js";
import { startPostgres } from "../harness/postgres.js";

function contract(label: string, open: () => Promise<SourceStore>, skip: () => string | false = () => false): void {
  describe(`source store contract: ${label}`, { skip: skip() }, () => {
    let store: SourceStore;
    before(async () => {
      store = await open();
    });
    after(async () => store?.close());
    const add = (name: string) =>
      store.add({ name, kind: "hackernews", settings: { backlog: 5 }, intervalSeconds: 30 });

    it("adds, lists, pauses, resumes and removes; names are unique", async () => {
      const r = await add("hn");
      assert.equal(r.kind, "hackernews");
      assert.deepEqual(r.settings, { backlog: 5 });
      assert.equal(r.cursor, undefined);
      assert.equal(healthOf(r), "new");
      await assert.rejects(add("hn"), SourceExistsError);
      await add("b");
      assert.deepEqual(
        (await store.list()).map((s) => s.name),
        ["b", "hn"],
      );
      assert.equal(await store.setPaused("b", true), true);
      assert.equal(await store.claim("b", "me", 10_000), undefined, "a paused source is not claimed");
      assert.equal(await store.setPaused("b", false), true);
      assert.equal(await store.remove("b"), true);
      assert.equal(await store.remove("b"), false);
      assert.equal(await store.setPaused("nope", true), false);
    });

    it("leases a source to one owner at a time; a cursor is saved only under a held lease", async () => {
      const mine = await store.claim("hn", "A", 60_000);
      assert.equal(mine?.leaseOwner, "A");
      assert.equal(await store.claim("hn", "B", 60_000), undefined, "B cannot claim while A holds it");
      assert.equal(await store.saveCursor("hn", "B", "b-cursor", 60_000, 1), false);
      assert.equal(await store.saveCursor("hn", "A", "a-cursor", 60_000, 3), true);
      assert.equal(await store.renew("hn", "A", 60_000), true);
      await store.finishPoll("hn", "A", { ok: true, posts: 3 }, Date.now() - 1);
      const r = (await store.get("hn"))!;
      assert.equal(r.cursor, "a-cursor");
      assert.equal(r.postsWritten, 3);
      assert.equal(r.leaseOwner, undefined);
      assert.equal(healthOf(r), "ok");
    });

    it("lets another owner take over an expired lease, after which the old owner can save nothing", async () => {
      assert.ok(await store.claim("hn", "A", 300));
      await sleep(400);
      assert.ok(await store.claim("hn", "B", 60_000), "B takes over once A's lease ran out");
      assert.equal(await store.saveCursor("hn", "A", "stale", 60_000, 1), false);
      assert.equal(await store.renew("hn", "A", 60_000), false);
      await store.finishPoll("hn", "A", { ok: false, posts: 0, kind: "timeout", message: "late" }, 0);
      assert.equal((await store.get("hn"))!.leaseOwner, "B", "A's late finish does not release B's lease");
      await store.finishPoll("hn", "B", { ok: true, posts: 0 }, Date.now() - 1);
    });

    it("counts failures into unhealthy, and one success heals", async () => {
      for (let i = 0; i < 3; i += 1) {
        assert.ok(await store.claim("hn", "A", 60_000));
        await store.finishPoll(
          "hn",
          "A",
          { ok: false, posts: 0, kind: "server_error", message: "HTTP 503" },
          Date.now() - 1,
        );
      }
      const sick = (await store.get("hn"))!;
      assert.equal(healthOf(sick), "unhealthy");
      assert.equal(sick.lastErrorKind, "server_error");
      assert.equal(sick.lastError, "HTTP 503");
      assert.ok(await store.claim("hn", "A", 60_000));
      await store.finishPoll("hn", "A", { ok: true, posts: 0 }, Date.now() + 30_000);
      const healed = (await store.get("hn"))!;
      assert.equal(healthOf(healed), "ok");
      assert.equal(await store.claim("hn", "A", 60_000), undefined, "not due before nextPollAt");
    });
  });
}

let dir: string | undefined;
contract("sqlite", async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-sources-"));
  return openSqliteSourceStore(path.join(dir, "sources.sqlite"));
});

let pgServer: PostgresDatabase | PostgresUnavailable | undefined;
const pg = await startPostgres();
pgServer = pg;
contract(
  "postgres",
  async () => openPostgresSourceStore(pg.url!),
  () => pg.skip ?? false,
);

after(async () => {
  await pgServer?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});
