/**
 * Ingest and serve are separate processes sharing one LanceDB directory: rows a writer process
 * commits must reach an already-open reader within the documented freshness delay.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DEFAULT_FRESHNESS_SECONDS, LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { DIMS, MODEL, randomPosts } from "./synthetic.js";

const run = promisify(execFile);
const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "lancedb-writer.ts");

async function writeFromChild(dir: string, n: number, prefix: string): Promise<{ inserted: number; updated: number }> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", writer, dir, String(n), prefix]);
  return JSON.parse(stdout) as { inserted: number; updated: number };
}

describe("LanceDB across processes", () => {
  it("an open reader sees another process's writes within the freshness delay", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-xproc-"));
    const reader = new LanceDbIndex({ dir });
    try {
      await reader.open(MODEL, DIMS);
      assert.equal(await reader.count(), 0);
      assert.deepEqual(await writeFromChild(dir, 30, "a"), { inserted: 30, updated: 0, failed: [] });
      const written = Date.now();
      const probe = randomPosts(30, 5, "a")[12]!;
      let delay = -1;
      while (Date.now() - written < (DEFAULT_FRESHNESS_SECONDS + 2) * 1000) {
        const hits = await reader.nearVector({ vector: probe.vector, limit: 1, offset: 0 });
        const kw = await reader.keyword({ text: probe.title, limit: 1, offset: 0 });
        if (hits[0]?.post.id === probe.id && kw.length > 0) {
          delay = Date.now() - written;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(delay >= 0, "writes never became visible");
      assert.ok(delay <= (DEFAULT_FRESHNESS_SECONDS + 0.5) * 1000, `visible after ${delay} ms`);
      assert.equal(await reader.count(), 30);
      // A second run of the same posts updates, never duplicates.
      assert.deepEqual(await writeFromChild(dir, 30, "a"), { inserted: 0, updated: 30, failed: [] });
      await new Promise((r) => setTimeout(r, (DEFAULT_FRESHNESS_SECONDS + 0.2) * 1000));
      assert.equal(await reader.count(), 30);
    } finally {
      await reader.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a second writing process and takes over a dead writer's lock", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-xlock-"));
    const writer = new LanceDbIndex({ dir });
    try {
      await writer.open(MODEL, DIMS);
      await writer.upsert(randomPosts(5, 1, "w"));
      await assert.rejects(writeFromChild(dir, 5, "c"), /another process \(pid \d+\) is writing/);
      await writer.close();
      assert.equal((await writeFromChild(dir, 5, "c")).inserted, 5);
      // A lock left by a process that died is stale.
      const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "threadsight-writer.lock"), String(dead));
      assert.equal((await writeFromChild(dir, 5, "d")).inserted, 5);
    } finally {
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
