/**
 * Guesses an input's format from its name and its first decompressed bytes. CSV headers are
 * recognised by their column names, JSON by the fields of the first record. A generic JSONL file
 * cannot be told apart from "some other JSON", so a --map implies the `jsonl` format.
 */
import type { Format } from "./formats.js";

/** Thrown when the format cannot be told; the message suggests --format. */
export class FormatDetectionError extends Error {
  override readonly name = "FormatDetectionError";
}

/** Bytes of decompressed input that detection looks at. */
export const DETECT_BYTES = 64 * 1024;

function csvHeader(firstLine: string): string[] {
  return firstLine.split(",").map((c) => c.trim().replace(/^"|"$/g, "").toLowerCase());
}

function fromObject(record: Record<string, unknown>): Format | undefined {
  if (record["kind"] === "Listing" || record["kind"] === "t3") return "reddit-listing";
  if ("title" in record && ("subreddit" in record || "created_utc" in record)) return "reddit-ndjson";
  if ("time" in record && "type" in record && ("by" in record || "title" in record)) return "hn-json";
  if ("community" in record && ("archive_url" in record || "permalink_original" in record))
    return "stackexchange-jsonl";
  // Last: the post model's own names (a dump in any of the formats above matches those first).
  if ("id" in record && "title" in record && "created" in record) return "jsonl";
  return undefined;
}

/**
 * Detects the format of a file named `name` whose decompressed content starts with `head`.
 * `hasMap`: a --map was given, which means generic JSONL.
 */
export function detectFormat(name: string, head: Buffer, hasMap = false): Format {
  if (hasMap) return "jsonl";
  let text = head.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const trimmed = text.trimStart();
  const firstLine = (trimmed.split("\n", 1)[0] ?? "").replace(/\r$/, "");
  const hint = `; pass --format (one of reddit-ndjson, reddit-listing, reddit-csv, hn-csv, hn-json, stackexchange-jsonl, jsonl with --map, or jsonl fields named id, title, created, ...)`;
  if (trimmed === "") throw new FormatDetectionError(`${name} is empty${hint}`);
  const first = trimmed[0];
  if (first !== "{" && first !== "[") {
    const columns = csvHeader(firstLine);
    if (
      columns.includes("title") &&
      columns.includes("created_utc") &&
      (columns.includes("permalink") || columns.includes("subreddit"))
    )
      return "reddit-csv";
    if (columns.includes("title") && columns.includes("num_points") && columns.includes("created_at")) return "hn-csv";
    throw new FormatDetectionError(
      `${name}: not JSON, and the CSV header (${columns.slice(0, 8).join(",")}) matches no known format${hint}`,
    );
  }
  let record: unknown;
  try {
    record = JSON.parse(firstLine);
  } catch {
    record = undefined;
  }
  if (Array.isArray(record)) record = record[0];
  if (typeof record === "object" && record !== null) {
    const format = fromObject(record as Record<string, unknown>);
    if (format !== undefined) return format;
    throw new FormatDetectionError(
      `${name}: JSON records with fields ${Object.keys(record).slice(0, 8).join(", ")} match no known format${hint}`,
    );
  }
  // A pretty-printed document: look at the head's text.
  if (/"kind"\s*:\s*"(Listing|t3)"/.test(text)) return "reddit-listing";
  if (/"type"\s*:\s*"(story|comment|job|poll|pollopt)"/.test(text) && /"time"\s*:/.test(text)) return "hn-json";
  throw new FormatDetectionError(
    `${name}: cannot tell the JSON format from its first ${Math.min(text.length, DETECT_BYTES)} bytes${hint}`,
  );
}
