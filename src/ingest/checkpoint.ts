/**
 * Resumability. After each batch is written to the index, the number of input records consumed
 * so far (posts and skips, in input order) and the running counts are saved in
 * `<dataDir>/ingest-checkpoints/<key>.json`, keyed by the index written to (the scope) and the
 * identity of the input's content, so progress made into one index (say a Weaviate collection)
 * is never taken for progress into another that shares the data directory. A restarted ingest
 * skips that many records. A kill between a write and its checkpoint replays at most one batch,
 * which is harmless because upserts are idempotent by id (the replayed posts count as
 * "updated" or "unchanged"). A finished file's checkpoint is deleted, so ingesting the same file
 * again re-reads it (updating the posts that changed; pipeline.ts reuses unchanged vectors).
 *
 * Why content and not path + mtime: dumps get redeployed (rsync without -t, a fresh download,
 * a container image layer) with the same bytes and a new mtime, or under another directory; the
 * records are the same, so the place in them is too, and restarting a multi-GB ingest from zero
 * would waste hours of embedding. The identity is the size plus a SHA-256 over the first and last
 * MiB and {@link SAMPLE_COUNT} blocks of 64 KiB spread evenly between them: under 3.1 MiB read
 * whatever the file size, so a few milliseconds even for a multi-GB .zst dump, where hashing
 * every byte would add tens of seconds to every start. It is safe for what dumps go through:
 * a re-export or an appended dump changes the size or the tail, and in a .zst any edit changes
 * the compressed stream from that point to the end (and the frame checksum at the end). The one
 * change it could miss, a same-size in-place edit of an uncompressed file between samples, would
 * at worst leave the edited records before the resume point as they were, which re-ingesting the
 * finished file repairs. The path is not part of the key: identical bytes elsewhere hold the same
 * records. Checkpoints written under the old path + size + mtime key are still read once.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { IngestStats } from "./ingest-stats.js";
import { statsFromJson } from "./ingest-stats.js";

/** Bytes hashed at each end of the file. */
export const EDGE_BYTES = 1024 * 1024;
/** Blocks sampled between the two ends. */
export const SAMPLE_COUNT = 16;
/** Size of each sampled block. */
export const SAMPLE_BYTES = 64 * 1024;

/** Identity of an input file version. */
export interface InputIdentity {
  path: string;
  size: number;
  /** Recorded for people reading the checkpoint and for the legacy key; not part of the key. */
  mtimeMs: number;
  /** Hash of sampled content (see the module comment); {@link contentHash} computes it. */
  contentHash: string;
}

/** What a checkpoint holds. */
export interface Checkpoint extends InputIdentity {
  /** Records (posts + skips) consumed and fully written, from the start of the file. */
  records: number;
  /** Counts for those records. */
  stats: IngestStats;
  updatedAt: string;
}

/** Offsets and lengths of the byte ranges hashed for a file of `size` bytes, in order. */
export function sampledRanges(size: number): { offset: number; length: number }[] {
  if (size <= 2 * EDGE_BYTES + SAMPLE_COUNT * SAMPLE_BYTES) return [{ offset: 0, length: size }];
  const ranges = [{ offset: 0, length: EDGE_BYTES }];
  const middle = size - 2 * EDGE_BYTES - SAMPLE_BYTES;
  for (let i = 1; i <= SAMPLE_COUNT; i++)
    ranges.push({ offset: EDGE_BYTES + Math.floor((middle * i) / (SAMPLE_COUNT + 1)), length: SAMPLE_BYTES });
  ranges.push({ offset: size - EDGE_BYTES, length: EDGE_BYTES });
  return ranges;
}

/** The content hash of the file at `file` (sampled; see the module comment). */
export async function contentHash(file: string, size: number): Promise<string> {
  const hash = createHash("sha256").update(`${size}\0`);
  const handle = await open(file, "r");
  try {
    for (const { offset, length } of sampledRanges(size)) {
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await handle.read(buf, got, length - got, offset + got);
        if (bytesRead === 0) throw new Error(`${file} shrank while it was being read (expected ${size} bytes)`);
        got += bytesRead;
      }
      hash.update(buf);
    }
  } finally {
    await handle.close();
  }
  return hash.digest("hex");
}

/** The identity of the file at `file` now. */
export async function inputIdentity(file: string): Promise<InputIdentity> {
  const handle = await open(file, "r");
  let size: number;
  let mtimeMs: number;
  try {
    ({ size, mtimeMs } = await handle.stat());
  } finally {
    await handle.close();
  }
  return { path: path.resolve(file), size, mtimeMs, contentHash: await contentHash(file, size) };
}

/** Checkpoints of one data directory. */
export class CheckpointStore {
  readonly dir: string;
  readonly #scope: string;

  /** `scope` names the index the ingest writes to (see checkpointScope); "" for one index per data dir. */
  constructor(dataDir: string, scope = "") {
    this.dir = path.join(dataDir, "ingest-checkpoints");
    this.#scope = scope;
  }

  /** The checkpoint file for an input. */
  fileFor(input: InputIdentity): string {
    const key = createHash("sha256")
      .update(`${this.#scope}\0content\0${input.size}\0${input.contentHash}`)
      .digest("hex")
      .slice(0, 32);
    return path.join(this.dir, `${key}.json`);
  }

  /** Where checkpoints keyed by path, size and mtime (before content keys) were saved. */
  #legacyFileFor(input: InputIdentity): string {
    const key = createHash("sha256")
      .update(`${this.#scope}\0${path.resolve(input.path)}\0${input.size}\0${Math.trunc(input.mtimeMs)}`)
      .digest("hex")
      .slice(0, 32);
    return path.join(this.dir, `${key}.json`);
  }

  /** The saved checkpoint, or undefined when there is none (or it is unreadable). */
  async load(input: InputIdentity): Promise<Checkpoint | undefined> {
    return (await this.#read(this.fileFor(input), input)) ?? (await this.#read(this.#legacyFileFor(input), input));
  }

  async #read(file: string, input: InputIdentity): Promise<Checkpoint | undefined> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    try {
      const json = JSON.parse(text) as Partial<Checkpoint>;
      if (typeof json.records !== "number" || json.records < 0) return undefined;
      return {
        ...identity(input),
        records: json.records,
        stats: statsFromJson(json.stats),
        updatedAt: String(json.updatedAt ?? ""),
      };
    } catch {
      return undefined; // a torn write cannot happen (rename), but never let a bad file block ingest
    }
  }

  /** Saves atomically (write to a temp file, then rename). */
  async save(input: InputIdentity, records: number, stats: IngestStats): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = this.fileFor(input);
    const tmp = `${file}.${process.pid}.tmp`;
    const checkpoint: Checkpoint = { ...identity(input), records, stats, updatedAt: new Date().toISOString() };
    await writeFile(tmp, JSON.stringify(checkpoint, null, 2));
    await rename(tmp, file);
    await rm(this.#legacyFileFor(input), { force: true });
  }

  /** Forgets an input (it was ingested to the end). */
  async clear(input: InputIdentity): Promise<void> {
    await rm(this.fileFor(input), { force: true });
    await rm(this.#legacyFileFor(input), { force: true });
  }
}

function identity(input: InputIdentity): InputIdentity {
  return { path: path.resolve(input.path), size: input.size, mtimeMs: input.mtimeMs, contentHash: input.contentHash };
}

/** The checkpoint scope of an index: the embedded one, or a Weaviate collection at a URL. */
export function checkpointScope(target: { weaviateUrl: string | undefined; weaviateCollection: string }): string {
  return target.weaviateUrl === undefined ? "" : `weaviate ${target.weaviateUrl} ${target.weaviateCollection}`;
}
