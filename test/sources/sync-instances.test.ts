/**
 * Two `threadsight sync` processes on one real PostgreSQL (DATABASE_URL) share one Hacker News
 * source: only the one holding the lease polls it; when that one is SIGKILLed, its lease runs
 * out and the other takes over from the cursor it saved. Each process names itself in its
 * User-Agent, so the local HN API's request log says who asked for what, and when.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { openPostgresSourceStore } from "../../src/sources/store/postgres-source-store.js";
import type { SourceStore } from "../../src/sources/store/source-store.js";
import { hnCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeHn } from "../fakes/hackernews-server.js";
import { startFakeHn } from "../fakes/hackernews-server.js";
import { startPostgres } from "../harness/postgres.js";
import { corporaSkip, runCli } from "../harness/seed.js";

const pg = await startPostgres();
const skip = corporaSkip() || (pg.skip ?? false);

describe("two sync instances on one PostgreSQL", { skip, timeout: 600_000 }, () => {
  let hn: FakeHn;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let store: SourceStore;
  before(async () => {
    hn = await startFakeHn(await hnCorpusPosts(400));
    store = await openPostgresSourceStore(pg.url!);
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await store?.close();
    await hn?.close();
    await pg.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const startSync = async (
    name: string,
  ): Promise<{ child: ChildProcess; ready: Promise<void>; exited: Promise<void>; stderr: () => string }> => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), `threadsight-inst-${name}-`));
    dirs.push(dataDir);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts"), "sync"],
      {
        cwd: PACKAGE_ROOT,
        env: {
          ...process.env,
          LOG_LEVEL: "warn",
          THREADSIGHT_DATA_DIR: dataDir,
          DATABASE_URL: pg.url!,
          EMBED_WORKERS: "1",
          SYNC_LEASE_SECONDS: "5",
          SYNC_USER_AGENT: `threadsight-sync/instance-${name}`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(child);
    let err = "";
    const ready = new Promise<void>((resolve) => {
      child.stderr!.setEncoding("utf8").on("data", (c: string) => {
        err += c;
        if (err.includes("polling as")) resolve();
      });
    });
    child.stdout!.resume();
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    return { child, ready, exited, stderr: () => err };
  };
  const itemRequests = (who: string) =>
    hn.requests
      .filter((r) => String(r.headers["user-agent"]).endsWith(`instance-${who}`) && r.url.startsWith("/v0/item/"))
      .map((r) => ({ at: r.at, id: Number(/(\d+)\.json/.exec(r.url)![1]) }));
  const cursorNext = async (): Promise<number | undefined> => {
    const c = (await store.get("hn"))?.cursor;
    return c === undefined ? undefined : (JSON.parse(c) as { next: number }).next;
  };

  it("polls the source from one instance at a time, and the survivor takes over from the saved cursor", async () => {
    const stories = hn.publish(400);
    const firstId = stories[0]!.id;
    const added = await runCli(
      [
        "sources",
        "add",
        "hn",
        "--kind",
        "hackernews",
        "--settings",
        JSON.stringify({ firebaseUrl: hn.url, backlog: 800, refreshUpdates: false }),
        "--interval",
        "3600",
      ],
      { DATABASE_URL: pg.url! },
    );
    assert.equal(added.code, 0, added.stderr);
    hn.inject({ path: /^\/v0\/item\//, kind: "slow", delayMs: 150, times: 100_000 });
    const a = await startSync("a");
    const b = await startSync("b");
    await Promise.all([a.ready, b.ready]);
    const deadline = Date.now() + 300_000;
    let leaderName: "a" | "b" | undefined;
    for (;;) {
      assert.ok(
        Date.now() < deadline,
        `no instance saved a cursor: ${a.stderr().slice(-1000)} ${b.stderr().slice(-1000)}`,
      );
      const next = await cursorNext();
      const owner = (await store.get("hn"))?.leaseOwner;
      if (next !== undefined && next >= firstId + 100 && owner !== undefined) {
        leaderName = itemRequests("a").length > 0 ? "a" : "b";
        break;
      }
      await sleep(100);
    }
    const leader = leaderName === "a" ? a : b;
    const other = leaderName === "a" ? b : a;
    const otherName = leaderName === "a" ? "b" : "a";
    assert.equal(itemRequests(otherName).length, 0, "while the leader polls, the other instance asks for nothing");
    leader.child.kill("SIGKILL");
    await leader.exited;
    const killedAt = Date.now();
    const savedByLeader = (await cursorNext())!;
    assert.ok(savedByLeader <= hn.maxItem, "the leader died mid-poll");

    for (;;) {
      assert.ok(Date.now() < deadline, `the survivor never finished the poll: ${other.stderr().slice(-2000)}`);
      if ((await cursorNext()) === hn.maxItem + 1 && (await store.get("hn"))?.leaseOwner === undefined) break;
      await sleep(200);
    }
    other.child.kill("SIGTERM");
    await other.exited;
    const survivor = itemRequests(otherName);
    assert.ok(survivor.length > 0);
    assert.ok(Math.min(...survivor.map((r) => r.at)) >= killedAt, "the survivor only polled after the leader died");
    assert.ok(
      Math.min(...survivor.map((r) => r.id)) >= savedByLeader - 200,
      `it resumed from the saved cursor ${savedByLeader}, not from the start`,
    );
    const asked = new Set([...itemRequests("a"), ...itemRequests("b")].map((r) => r.id));
    for (let id = firstId; id <= hn.maxItem; id += 1) assert.ok(asked.has(id), `item ${id} was read by one of them`);
    assert.deepEqual(hn.violations, []);
  });
});
