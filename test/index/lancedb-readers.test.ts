/**
 * The reader marks writers consult (src/index/lancedb/readers.ts): a serving process's mark, its
 * withdrawal, and marks left by processes that are gone.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { announceReader, serverReading } from "../../src/index/lancedb/readers.js";

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "threadsight-readers-"));
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

describe("embedded index reader marks", () => {
  it("a missing or empty directory has no reader; one that cannot be listed counts as read", () => {
    const dir = tempDir();
    try {
      assert.equal(serverReading(path.join(dir, "absent")), false);
      assert.equal(serverReading(dir), false);
      const file = path.join(dir, "not-a-directory");
      writeFileSync(file, "");
      assert.equal(serverReading(file), true);
      rmSync(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a live process's mark counts until it is withdrawn (twice is harmless)", () => {
    const dir = tempDir();
    try {
      const withdraw = announceReader(dir);
      assert.equal(serverReading(dir), true);
      withdraw();
      withdraw();
      assert.equal(serverReading(dir), false);
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the mark of a process that is gone (a server killed with SIGKILL) is ignored and removed; other files are left alone", () => {
    const dir = tempDir();
    try {
      const stale = path.join(dir, `threadsight-reader-${deadPid()}`);
      writeFileSync(stale, "");
      writeFileSync(path.join(dir, "threadsight-reader-notapid"), "");
      writeFileSync(path.join(dir, "threadsight-writer.lock"), String(process.pid));
      assert.equal(serverReading(dir), false);
      assert.equal(existsSync(stale), false);
      assert.deepEqual(readdirSync(dir), ["threadsight-writer.lock"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
