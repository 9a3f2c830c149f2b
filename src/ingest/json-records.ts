/**
 * JSON records from a byte stream: JSON Lines, streamed one line at a time, or — when allowed and
 * the first line is not a JSON value on its own — one JSON document (object or array), which is
 * buffered up to a cap because a single document cannot be parsed incrementally without a
 * streaming parser. Reddit API listing pages and single HN items are small, so the cap is generous.
 */
import { lines } from "./lines.js";
import type { ByteSource, ReadItem } from "./read-item.js";
import { skip } from "./read-item.js";

/** Largest single JSON document accepted (not a limit on JSON Lines files). */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

/** One parsed JSON value and the line it starts on. */
export interface JsonRecord {
  value: unknown;
  line: number;
}

/** Thrown when a whole-document input is larger than {@link MAX_DOCUMENT_BYTES}. */
export class DocumentTooLargeError extends Error {
  override readonly name = "DocumentTooLargeError";
}

function parse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/**
 * Yields parsed values, or bad_json skips for lines that do not parse. With `allowDocument`,
 * a first line that does not parse alone switches to whole-document mode; if the document does
 * not parse either, the buffered lines are read as JSON Lines after all (so each bad line is
 * reported on its own line number).
 */
export async function* jsonRecords(
  bytes: ByteSource,
  options: { allowDocument?: boolean } = {},
): AsyncGenerator<JsonRecord | ReadItem> {
  let mode: "unknown" | "lines" | "document" = "unknown";
  const buffered: { text: string; number: number }[] = [];
  let bufferedBytes = 0;
  for await (const line of lines(bytes)) {
    if (mode === "document") {
      buffered.push(line);
      bufferedBytes += line.text.length + 1;
      if (bufferedBytes > MAX_DOCUMENT_BYTES) {
        throw new DocumentTooLargeError(
          `JSON document larger than ${MAX_DOCUMENT_BYTES} bytes; use JSON Lines (one object a line) for large inputs`,
        );
      }
      continue;
    }
    if (line.text.trim() === "") continue;
    if (mode === "unknown") {
      const first = parse(line.text);
      if (!first.ok && options.allowDocument === true) {
        mode = "document";
        buffered.push(line);
        bufferedBytes = line.text.length + 1;
        continue;
      }
      mode = "lines";
    }
    yield* lineRecord(line.text, line.number);
  }
  if (mode !== "document") return;
  const whole = parse(buffered.map((l) => l.text).join("\n"));
  if (whole.ok) {
    yield { value: whole.value, line: buffered[0]?.number ?? 1 };
    return;
  }
  for (const line of buffered) if (line.text.trim() !== "") yield* lineRecord(line.text, line.number);
}

function* lineRecord(text: string, number: number): Generator<JsonRecord | ReadItem> {
  const parsed = parse(text);
  if (parsed.ok) yield { value: parsed.value, line: number };
  else yield skip(number, "bad_json", parsed.error);
}

/** Narrows a jsonRecords output to a parsed record. */
export function isJsonRecord(item: JsonRecord | ReadItem): item is JsonRecord {
  return "value" in item;
}
