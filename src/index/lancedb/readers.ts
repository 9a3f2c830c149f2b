/**
 * The servers reading an embedded index, as its writers see them. A writer that knows nobody is
 * searching the directory can leave all index upkeep to its close (a bulk load's CPU goes to the
 * encoder instead, lancedb/maintenance.ts); one that knows a server is reading keeps the indexes
 * current so that server's searches stay fast.
 *
 * Each serving process keeps a file named for its pid in the LanceDB directory, as the writer
 * lock does (lancedb/writer-lock.ts), and removes it when it closes. A file whose process is gone
 * (a server killed with SIGKILL) is stale: ignored and removed by the next look. A reused pid can
 * only make a writer believe a server is there, which costs it speed, never a reader's.
 * Processes must share the host (and pid namespace), as they must for the writer lock.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isAlive } from "./process-alive.js";

const PREFIX = "threadsight-reader-";

/** Marks this process as serving searches from `dir` until the returned function is called. */
export function announceReader(dir: string): () => void {
  // One mark per open index, so one of two in a process closing leaves the other's.
  const file = path.join(dir, `${PREFIX}${process.pid}-${randomBytes(4).toString("hex")}`);
  writeFileSync(file, `${process.pid}\n`);
  let withdrawn = false;
  return () => {
    if (withdrawn) return;
    withdrawn = true;
    rmSync(file, { force: true });
  };
}

/**
 * Whether a live process serves searches from `dir`; removes the marks of processes that are
 * gone. A directory that cannot be listed (other than a missing one) counts as read: not knowing
 * is no reason to slow a server's searches, and the answer must not fail the write asking it.
 */
export function serverReading(dir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ENOENT";
  }
  let reading = false;
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (Number.isSafeInteger(pid) && pid > 0 && isAlive(pid)) reading = true;
    else removeStale(path.join(dir, name));
  }
  return reading;
}

function removeStale(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Another user's mark in a directory where only its owner may delete it: ignored all the
    // same (its pid is gone), and the next look tries again.
  }
}
