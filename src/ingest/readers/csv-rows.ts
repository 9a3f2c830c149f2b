/**
 * CSV rows as objects keyed by the header, streamed through csv-parse, each with the line it
 * starts on. Rows the parser rejects (wrong column count, broken quotes) become bad_row skips
 * instead of ending the file.
 */

import { Readable } from "node:stream";
import { parse } from "csv-parse";
import type { ByteSource, ReadItem } from "../read-item.js";
import { skip } from "../read-item.js";

/** A parsed row and its first line. */
export interface CsvRow {
  row: Record<string, string>;
  line: number;
}

/** Yields rows and bad_row skips in file order. */
export async function* csvRows(bytes: ByteSource): AsyncGenerator<CsvRow | ReadItem> {
  const parser = parse({
    columns: true,
    bom: true,
    info: true,
    raw: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    relax_column_count: false,
  });
  const rejected: ReadItem[] = [];
  parser.on("skip", (err: Error & { lines?: number }) => {
    rejected.push(skip(err.lines ?? 0, "bad_row", err.message));
  });
  const source = Readable.from(bytes);
  source.on("error", (err) => parser.destroy(err)).pipe(parser);
  try {
    // `info.lines` is the record's last line; quoted newlines inside it give its first.
    for await (const { record, info, raw } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
      raw: string;
    }>) {
      while (rejected.length > 0) yield rejected.shift()!;
      yield { row: record, line: info.lines - innerNewlines(raw) };
    }
    while (rejected.length > 0) yield rejected.shift()!;
  } finally {
    // A consumer that stops early (--limit) must not leave the file open or a zstd child running.
    source.destroy();
  }
}

function innerNewlines(raw: string): number {
  let n = 0;
  for (let i = raw.indexOf("\n"); i >= 0; i = raw.indexOf("\n", i + 1)) n += 1;
  return raw.endsWith("\n") ? n - 1 : n;
}

/** Narrows a csvRows output to a row. */
export function isCsvRow(item: CsvRow | ReadItem): item is CsvRow {
  return "row" in item;
}
