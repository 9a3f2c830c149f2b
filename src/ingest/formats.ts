/**
 * The input formats `threadsight ingest` reads, and the reader for each. The names are what
 * `--format` accepts.
 */
import type { RecordReader } from "./read-item.js";
import type { FieldMap } from "./readers/generic-jsonl.js";
import { genericJsonlReader, POST_FIELD_MAP } from "./readers/generic-jsonl.js";
import { readHnCsv } from "./readers/hn-csv.js";
import { readHnJson } from "./readers/hn-json.js";
import { readRedditCsv } from "./readers/reddit-csv.js";
import { readRedditListing } from "./readers/reddit-listing.js";
import { readRedditNdjson } from "./readers/reddit-ndjson.js";
import { readStackExchangeJsonl } from "./readers/stackexchange-jsonl.js";

/** Format names, as accepted by --format. */
export const FORMATS = [
  "reddit-ndjson",
  "reddit-listing",
  "reddit-csv",
  "hn-csv",
  "hn-json",
  "stackexchange-jsonl",
  "jsonl",
] as const;
/** One of {@link FORMATS}. */
export type Format = (typeof FORMATS)[number];

/** What a one-line description of each format says in --help. */
export const FORMAT_HELP: Readonly<Record<Format, string>> = {
  "reddit-ndjson": "Reddit submissions dump, one JSON object a line (Pushshift / Arctic Shift; plain, .gz or .zst)",
  "reddit-listing": "Reddit API listing JSON ({kind: Listing, data: {children: [...]}})",
  "reddit-csv": "CSV with Reddit API column names (created_utc, id, title, selftext, permalink, ...)",
  "hn-csv": "Hacker News CSV (id, title, url, num_points, num_comments, author, created_at)",
  "hn-json": "Hacker News API items (one item, an array, or JSON Lines)",
  "stackexchange-jsonl": "Stack Exchange questions, JSON Lines (community, title, body, archive_url, ...)",
  jsonl: "any JSON Lines: fields named as the post model (id, title, created, content, ...) or mapped with --map",
};

/** True when `name` is a format name. */
export function isFormat(name: string): name is Format {
  return (FORMATS as readonly string[]).includes(name);
}

/** Options some readers need. */
export interface ReaderOptions {
  /** Field map for the generic `jsonl` format. */
  map?: FieldMap;
  /** Source name for generic `jsonl` posts; default "jsonl". */
  source?: string;
}

/** Returns the reader for `format`; `jsonl` without a map reads the post model's field names. */
export function readerFor(format: Format, options: ReaderOptions = {}): RecordReader {
  switch (format) {
    case "reddit-ndjson":
      return readRedditNdjson;
    case "reddit-listing":
      return readRedditListing;
    case "reddit-csv":
      return readRedditCsv;
    case "hn-csv":
      return readHnCsv;
    case "hn-json":
      return readHnJson;
    case "stackexchange-jsonl":
      return readStackExchangeJsonl;
    case "jsonl":
      return genericJsonlReader(options.map ?? POST_FIELD_MAP, options.source ?? "jsonl");
  }
}
