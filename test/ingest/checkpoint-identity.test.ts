/**
 * Checkpoints are keyed by the input's content, not its mtime or path: a redeployed identical
 * dump (same bytes, new mtime, maybe another directory) resumes, a changed one starts afresh.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import {
  CheckpointStore,
  EDGE_BYTES,
  inputIdentity,
  SAMPLE_BYTES,
  sampledRanges,
} from "../../src/ingest/checkpoint.js";
import { emptyStats } from "../../src/ingest/ingest-stats.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-ckpt-id-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A 5 MiB file of random bytes: large enough that only samples of it are hashed. */
function bigFile(name: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, randomBytes(5 * 1024 * 1024));
  return file;
}

/** Flips one byte of `file` at `offset` in place (same size). */
function flip(file: string, offset: number): void {
  const bytes = readFileSync(file);
  bytes[offset] = bytes[offset]! ^ 0xff;
  writeFileSync(file, bytes);
}

test("a copy with a new mtime, in another directory, resumes from the saved checkpoint", async () => {
  const store = new CheckpointStore(path.join(dir, "data-copy"));
  const original = bigFile("dump.ndjson.zst");
  await store.save(await inputIdentity(original), 4096, { ...emptyStats(), read: 4096, inserted: 4000 });
  const redeployed = path.join(dir, "redeployed.ndjson.zst");
  copyFileSync(original, redeployed);
  utimesSync(redeployed, new Date(), new Date(Date.now() + 3_600_000));
  const id = await inputIdentity(redeployed);
  assert.notEqual(id.mtimeMs, (await inputIdentity(original)).mtimeMs);
  const loaded = await store.load(id);
  assert.equal(loaded?.records, 4096);
  assert.equal(loaded?.stats.inserted, 4000);
  assert.equal(loaded?.path, redeployed, "the checkpoint describes the file it was loaded for");
});

test("a changed file starts afresh: edited head, sampled middle, tail, or appended bytes", async () => {
  const store = new CheckpointStore(path.join(dir, "data-changed"));
  const file = bigFile("changing.ndjson");
  const size = (await inputIdentity(file)).size;
  const middle = sampledRanges(size)[8]!;
  assert.equal(middle.length, SAMPLE_BYTES);
  const edits: [string, () => void][] = [
    ["head", () => flip(file, 10)],
    ["sampled middle block", () => flip(file, middle.offset + 7)],
    ["tail", () => flip(file, size - EDGE_BYTES + 5)],
    ["appended", () => writeFileSync(file, "\n{}", { flag: "a" })],
  ];
  for (const [what, edit] of edits) {
    const before = await inputIdentity(file);
    await store.save(before, 100, emptyStats());
    edit();
    const after = await inputIdentity(file);
    assert.equal(await store.load(after), undefined, `${what}: no checkpoint for the changed file`);
    assert.equal((await store.load(before))?.records, 100, `${what}: the old version's checkpoint is still its own`);
    await store.clear(before);
  }
});

test("small files are hashed whole", async () => {
  assert.deepEqual(sampledRanges(1000), [{ offset: 0, length: 1000 }]);
  const file = path.join(dir, "small.csv");
  writeFileSync(file, "id,title\n1,a\n2,b\n");
  const a = await inputIdentity(file);
  writeFileSync(file, "id,title\n1,a\n2,c\n");
  assert.notEqual((await inputIdentity(file)).contentHash, a.contentHash);
});

test("a checkpoint saved under the old path + size + mtime key is still resumed, then moved", async () => {
  const dataDir = path.join(dir, "data-legacy");
  const store = new CheckpointStore(dataDir);
  const file = path.join(dir, "legacy.ndjson");
  writeFileSync(file, '{"id":"a"}\n'.repeat(100));
  const id = await inputIdentity(file);
  // The key the previous version computed (sha256 of scope, path, size, mtime).
  const legacyKey = createHash("sha256")
    .update(`\0${path.resolve(file)}\0${id.size}\0${Math.trunc(id.mtimeMs)}`)
    .digest("hex")
    .slice(0, 32);
  mkdirSync(store.dir, { recursive: true });
  const legacy = path.join(store.dir, `${legacyKey}.json`);
  writeFileSync(
    legacy,
    JSON.stringify({
      path: file,
      size: id.size,
      mtimeMs: id.mtimeMs,
      records: 42,
      stats: emptyStats(),
      updatedAt: "x",
    }),
  );
  assert.equal((await store.load(id))?.records, 42);
  await store.save(id, 50, emptyStats());
  assert.equal((await store.load(id))?.records, 50);
  assert.throws(() => readFileSync(legacy), /ENOENT/, "saving under the content key removes the legacy file");
});
