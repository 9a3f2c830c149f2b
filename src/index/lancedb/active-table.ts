/**
 * Which table of a LanceDB directory holds the posts. `threadsight reembed` writes the posts
 * with new vectors into a second table and then points the directory at it; the pointer is a
 * small file replaced by rename, so every process that opens the index afterwards reads the old
 * table or the new one, never a mix. Without the file the table is {@link POSTS_TABLE}.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { POSTS_TABLE } from "./schema.js";

const POINTER_FILE = "threadsight-active-table.json";

/** The name of the posts table `dir` points at. */
export function activeTable(dir: string): string {
  let text: string;
  try {
    text = readFileSync(path.join(dir, POINTER_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return POSTS_TABLE;
    throw err;
  }
  const table = (JSON.parse(text) as { table?: unknown }).table;
  if (typeof table !== "string" || !/^[A-Za-z0-9_-]+$/.test(table))
    throw new Error(`${path.join(dir, POINTER_FILE)} names no posts table; it holds ${JSON.stringify(text)}`);
  return table;
}

/** Points `dir` at `table` atomically (temp file + rename). */
export function setActiveTable(dir: string, table: string): void {
  const file = path.join(dir, POINTER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ table }));
  renameSync(tmp, file);
}
