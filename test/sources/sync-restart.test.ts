/**
 * Exactly-once across a crash, with the real command in a child process: `threadsight sync` is
 * SIGKILLed in the middle of a poll (the local HN API answers slowly, so the poll spans several
 * batches), then `threadsight sync --once` resumes. Every story ends in the index once, and the
 * second run starts at the cursor the first one saved: nothing lost, nothing read twice beyond
 * the batch in flight when the process died.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "../../src/config.js";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { openSqliteSourceStore } from "../../src/sources/store/sqlite-source-store.js";
import { hnCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeHn } from "../fakes/hackernews-server.js";
import { startFakeHn } from "../fakes/hackernews-server.js";
import { corporaSkip, runCli } from "../harness/seed.js";

const skip = corporaSkip();

describe("a SIGKILLed sync resumes with no gap and no duplicate", { skip, timeout: 600_000 }, () => {
  let hn: FakeHn;
  let dataDir: string;
  before(async () => {
    hn = await startFakeHn(await hnCorpusPosts(300));
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-restart-"));
  });
  after(async () => {
    await hn?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it("kills the first sync mid-poll; the second run writes the rest and every story once", async () => {
    const env = {
      THREADSIGHT_DATA_DIR: dataDir,
      EMBED_WORKERS: "1",
      SYNC_USER_AGENT: "threadsight-sync/test (restart suite)",
      SYNC_LEASE_SECONDS: "5",
    };
    const stories = hn.publish(250);
    const firstId = stories[0]!.id;
    const added = await runCli(
      [
        "sources",
        "add",
        "hn",
        "--kind",
        "hackernews",
        "--settings",
        JSON.stringify({ firebaseUrl: hn.url, backlog: 500, refreshUpdates: false }),
        "--interval",
        "3600",
      ],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    // Slow answers stretch the poll over several batches, so the kill lands inside it.
    hn.inject({ path: /^\/v0\/item\//, kind: "slow", delayMs: 150, times: 100_000 });
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts"), "sync"],
      {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, LOG_LEVEL: "warn", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    const store = openSqliteSourceStore(path.join(dataDir, "sources.sqlite"));
    let saved: number | undefined;
    try {
      const deadline = Date.now() + 300_000;
      for (;;) {
        assert.ok(Date.now() < deadline, `the first sync never saved a cursor past one batch: ${stderr.slice(-2000)}`);
        const cursor = (await store.get("hn"))?.cursor;
        const next = cursor === undefined ? undefined : (JSON.parse(cursor) as { next: number }).next;
        if (next !== undefined && next >= firstId + 200) {
          saved = next;
          break;
        }
        await sleep(100);
      }
      child.kill("SIGKILL");
      await exited;
    } finally {
      await store.close();
    }
    assert.ok(saved! < hn.maxItem + 1, "killed before the poll finished");
    const requestsBefore = hn.requests.length;
    hn.clearFaults();
    // The dead process still holds the source's lease until it runs out.
    await sleep(5_500);

    const resumed = await runCli(["sync", "--once"], env);
    assert.equal(resumed.code, 0, resumed.stderr);
    const second = hn.requests
      .slice(requestsBefore)
      .map((r) => /^\/v0\/item\/(\d+)\.json/.exec(r.url)?.[1])
      .filter((id): id is string => id !== undefined)
      .map(Number);
    assert.ok(
      Math.min(...second) >= saved! - 200,
      `the second run read from the saved cursor (${saved}), at most one batch earlier, not from the start; it began at ${Math.min(...second)}`,
    );
    assert.equal(Math.max(...second), hn.maxItem);
    assert.deepEqual(hn.violations, []);

    const config = loadConfig({
      THREADSIGHT_DATA_DIR: dataDir,
      EMBED_WORKERS: "1",
      PATH: process.env.PATH,
      HOME: process.env.HOME,
    });
    const embedder = await createEmbedder(config);
    const index = await openSearchIndex(config);
    try {
      await index.open(embedder.model, embedder.dimensions);
      const ids = stories.map((s) => `hackernews:${s.id}`);
      const got = await index.get(ids);
      assert.deepEqual(new Set(got.map((p) => p.id)), new Set(ids), "every story is in the index");
      assert.equal(await index.count(), stories.length, "and none twice");
    } finally {
      await index.close();
      await embedder.close();
    }
  });
});
