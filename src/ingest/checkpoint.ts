/**
 * Resumability. After each batch is written to the index, the number of input records consumed
 * so far (posts and skips, in input order) and the running counts are saved in
 * `<dataDir>/ingest-checkpoints/<key>.json`, keyed by the index written to (the scope) and the
 * input's absolute path, size and mtime, so an edited or replaced file starts afresh and progress
 * made into one index (say a Weaviate collection) is never taken for progress into another that
 * shares the data directory. A restarted ingest skips that many records. A kill
 * between a write and its checkpoint replays at most one batch, which is harmless because upserts
 * are idempotent by id (the replayed posts count as "updated"). A finished file's checkpoint is
 * deleted, so ingesting the same file again re-reads it (updating every post).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { IngestStats } from "./ingest-stats.js";
import { statsFromJson } from "./ingest-stats.js";

/** Identity of an input file version. */
export interface InputIdentity {
  path: string;
  size: number;
  mtimeMs: number;
}

/** What a checkpoint holds. */
export interface Checkpoint extends InputIdentity {
  /** Records (posts + skips) consumed and fully written, from the start of the file. */
  records: number;
  /** Counts for those records. */
  stats: IngestStats;
  updatedAt: string;
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
    const key = createHash("sha256").update(`${this.#scope}\0${path.resolve(input.path)}\0${input.size}\0${Math.trunc(input.mtimeMs)}`).digest("hex").slice(0, 32);
    return path.join(this.dir, `${key}.json`);
  }

  /** The saved checkpoint, or undefined when there is none (or it is unreadable). */
  async load(input: InputIdentity): Promise<Checkpoint | undefined> {
    let text: string;
    try {
      text = await readFile(this.fileFor(input), "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    try {
      const json = JSON.parse(text) as Partial<Checkpoint>;
      if (typeof json.records !== "number" || json.records < 0) return undefined;
      return { ...identity(input), records: json.records, stats: statsFromJson(json.stats), updatedAt: String(json.updatedAt ?? "") };
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
  }

  /** Forgets an input (it was ingested to the end). */
  async clear(input: InputIdentity): Promise<void> {
    await rm(this.fileFor(input), { force: true });
  }
}

function identity(input: InputIdentity): InputIdentity {
  return { path: path.resolve(input.path), size: input.size, mtimeMs: input.mtimeMs };
}

/** The checkpoint scope of an index: the embedded one, or a Weaviate collection at a URL. */
export function checkpointScope(target: { weaviateUrl: string | undefined; weaviateCollection: string }): string {
  return target.weaviateUrl === undefined ? "" : `weaviate ${target.weaviateUrl} ${target.weaviateCollection}`;
}
