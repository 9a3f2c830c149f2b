/**
 * Shared by the ingest tests: where the real corpora live (../shared/data, never copied into the
 * repo), the skip decision when they are absent, and a helper that runs a reader over a file.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { DETECT_BYTES, detectFormat } from "../../src/ingest/detect-format.js";
import type { Format, ReaderOptions } from "../../src/ingest/formats.js";
import { readerFor } from "../../src/ingest/formats.js";
import { openInput, peek } from "../../src/ingest/open-input.js";
import type { ReadItem } from "../../src/ingest/read-item.js";
import { dataPath } from "../eval/shared-data.js";
import { missingBackend } from "../harness/backend-policy.js";

/** The shared corpora folder (under THREADSIGHT_SHARED_DATA, default ../shared/data). */
export const CORPORA = dataPath("corpora");

/** node:test `skip` value: false when the corpora exist; a reason (or a throw under CI) otherwise. */
export function corporaSkip(): false | string {
  return existsSync(CORPORA) ? false : missingBackend("data", `${CORPORA} not found`);
}

/** Opens `file`, detects (or uses) its format and yields what the reader yields. */
export async function* readFile(file: string, format?: Format, options: ReaderOptions = {}): AsyncGenerator<ReadItem> {
  const input = await openInput(file);
  const { head, bytes } = await peek(input.bytes, DETECT_BYTES);
  const chosen =
    format ?? detectFormat(path.basename(file).replace(/\.(zst|gz)$/, ""), head, options.map !== undefined);
  yield* readerFor(chosen, options)(bytes);
}

/** The first `n` items of a file (stops reading early). */
export async function firstItems(
  file: string,
  n: number,
  format?: Format,
  options: ReaderOptions = {},
): Promise<ReadItem[]> {
  const out: ReadItem[] = [];
  for await (const item of readFile(file, format, options)) {
    out.push(item);
    if (out.length >= n) break;
  }
  return out;
}

/** Every item of a (small) file. */
export async function allItems(file: string, format?: Format, options: ReaderOptions = {}): Promise<ReadItem[]> {
  const out: ReadItem[] = [];
  for await (const item of readFile(file, format, options)) out.push(item);
  return out;
}

/** Posts and skips counted over a whole file without keeping them. */
export async function countItems(
  file: string,
  format?: Format,
): Promise<{ posts: number; skips: number; ids: Set<string> }> {
  let posts = 0;
  let skips = 0;
  const ids = new Set<string>();
  for await (const item of readFile(file, format)) {
    if ("post" in item) {
      posts += 1;
      ids.add(item.post.id);
    } else skips += 1;
  }
  return { posts, skips, ids };
}
