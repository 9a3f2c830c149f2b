/**
 * One writer per LanceDB directory, across processes. Concurrent mergeInserts of the same new id
 * each insert it (LanceDB does not enforce keys), so a second `threadsight ingest` on the same
 * directory must be refused rather than allowed to duplicate posts. The lock is a file holding
 * the writer's pid, created exclusively on the first write and removed on close; a lock whose
 * process is gone is stale and taken over. Readers (the server) never take it.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { IndexUnavailableError } from "../search-index.js";
import { isAlive } from "./process-alive.js";

const LOCK_FILE = "threadsight-writer.lock";

/** The writer lock of one directory, held by this process once acquire() succeeded. */
export class WriterLock {
  private held = false;
  private readonly file: string;

  /** `table`: a lock of that table's own instead of the directory's (a reembed's shadow table). */
  constructor(dir: string, table?: string) {
    this.file = path.join(dir, table === undefined ? LOCK_FILE : `threadsight-writer-${table}.lock`);
  }

  /** Takes the lock (idempotent); throws IndexUnavailableError while another live process holds it. */
  acquire(): void {
    if (this.held) return;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.file, "wx");
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.held = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const owner = this.owner();
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new IndexUnavailableError(
          `another process (pid ${owner}) is writing to ${path.dirname(this.file)}; run one ingest at a time per THREADSIGHT_DATA_DIR`,
        );
      }
      rmSync(this.file, { force: true });
    }
    throw new IndexUnavailableError(`could not take the writer lock ${this.file}`);
  }

  /** Gives the lock up if held. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    if (this.owner() === process.pid) rmSync(this.file, { force: true });
  }

  private owner(): number | undefined {
    try {
      const pid = Number(readFileSync(this.file, "utf8").trim());
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }
}
