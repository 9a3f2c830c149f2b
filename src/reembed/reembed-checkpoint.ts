/**
 * Where an interrupted `threadsight reembed` resumes: `<dataDir>/reembed/<scope>.json`, saved
 * after every batch the shadow copy has stored, written to a temporary file and renamed over
 * the old one. It names the copies and the target model, so a run for another model or into
 * another index never takes it for its own. A kill between a write and its checkpoint replays
 * one batch, which is harmless: writes to the shadow replace by post id.
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ScanCursor } from "../index/search-index.js";

/** What a checkpoint holds. */
export interface ReembedCheckpoint {
  format: 1;
  /** The index written to (the backend, and for Weaviate the server and alias). */
  scope: string;
  /** The live copy read and the shadow written. */
  live: string;
  shadow: string;
  /** Target model id and its dimensions. */
  model: string;
  dimensions: number;
  /** "copy": the first pass, at `cursor`; "catch-up": the first pass is done. */
  phase: "copy" | "catch-up";
  /** The last post copied, in (created, id) order; absent before the first batch. */
  cursor?: ScanCursor;
  /** Posts copied so far. */
  done: number;
}

/** Reads, saves and removes the checkpoint of one index. */
export class ReembedCheckpointFile {
  readonly file: string;

  constructor(dataDir: string, scope: string) {
    const name = scope === "" ? "lancedb" : scope.replace(/[^A-Za-z0-9._-]+/g, "_");
    this.file = path.join(dataDir, "reembed", `${name}.json`);
  }

  /** The saved checkpoint, or undefined when there is none. */
  async load(): Promise<ReembedCheckpoint | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    const c = JSON.parse(text) as Partial<ReembedCheckpoint>;
    if (c.format !== 1 || typeof c.shadow !== "string" || typeof c.model !== "string" || typeof c.done !== "number")
      throw new Error(`${this.file} is not a reembed checkpoint; remove it to start the reembed over`);
    return c as ReembedCheckpoint;
  }

  async save(checkpoint: ReembedCheckpoint): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(checkpoint));
    await rename(tmp, this.file);
  }

  async remove(): Promise<void> {
    await rm(this.file, { force: true });
  }
}
