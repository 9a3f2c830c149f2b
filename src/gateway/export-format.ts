/**
 * The two REST export formats and how a request picks one: the body's `format` field when set,
 * otherwise the Accept header (media ranges with q-values; absent means NDJSON). Each writer
 * turns proto-JSON posts into text: NDJSON one object per line, CSV (RFC 4180) one row per
 * post under a header row. Both end with a line saying how the export ended, so a client can
 * tell a complete export from a cut one: `{"end":{...}}` / `#end,<count>` when every matching
 * post was sent, `{"error":{...}}` / `#error,<reason>,<message>` when it stopped early.
 */
import type { ExportFormat } from "../core/posts.js";
import { EXPORT_FORMATS } from "../core/posts.js";

/** How an export stopped early, as its last line says. */
export interface ExportStop {
  code: string;
  reason: string;
  message: string;
  request_id: string;
  /** Seconds until the quota resets, when that is why it stopped. */
  retry_after_seconds?: number;
}

/** Writes one format. */
export interface ExportWriter {
  contentType: string;
  /** Text before the first post ("" or the CSV header row). */
  head(): string;
  /** The text of one post (its proto JSON, snake_case keys, every field present). */
  post(post: Record<string, unknown>): string;
  /** The last line of a complete export. */
  end(exported: number): string;
  /** The last line of an export that stopped early. */
  stop(stop: ExportStop, exported: number): string;
}

/** The CSV columns, in order: the StoredPost fields. */
export const CSV_COLUMNS = [
  "id",
  "created",
  "source",
  "subforum",
  "author",
  "title",
  "content",
  "url",
  "upvotes",
  "comments",
  "sentiment",
  "sentiment_score",
  "lead_type",
  "lead_score",
  "pain_point",
  "opportunity",
  "industry",
  "target_product",
] as const;

/** The CSV columns of an export with a query: the same, then the post's similarity to it. */
export const CSV_QUERY_COLUMNS = [...CSV_COLUMNS, "similarity_score"] as const;

/** One CSV field: quoted when it holds a quote, comma or line break, quotes doubled (RFC 4180). */
export function csvField(value: unknown): string {
  const text = value === undefined || value === null ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvRow = (values: readonly unknown[]): string => `${values.map(csvField).join(",")}\r\n`;

/** The CSV writer over `columns`. */
function csvWriter(columns: readonly string[]): ExportWriter {
  return {
    contentType: "text/csv; charset=utf-8; header=present",
    head: () => csvRow(columns),
    post: (post) => csvRow(columns.map((c) => post[c])),
    end: (exported) => csvRow(["#end", exported]),
    stop: (stop, exported) => csvRow(["#error", stop.reason, stop.message, exported]),
  };
}

/** The writers by format, for an export without a query. */
export const WRITERS: Readonly<Record<ExportFormat, ExportWriter>> = {
  ndjson: {
    contentType: "application/x-ndjson; charset=utf-8",
    head: () => "",
    post: (post) => `${JSON.stringify(post)}\n`,
    end: (exported) => `${JSON.stringify({ end: { exported } })}\n`,
    stop: (stop, exported) => `${JSON.stringify({ error: { ...stop, exported } })}\n`,
  },
  csv: csvWriter(CSV_COLUMNS),
};

const QUERY_CSV = csvWriter(CSV_QUERY_COLUMNS);

/**
 * The writer of `format`; an export with a query adds the similarity_score column to CSV
 * (NDJSON lines carry the field whenever it is set).
 */
export function writerFor(format: ExportFormat, withQuery: boolean): ExportWriter {
  return format === "csv" && withQuery ? QUERY_CSV : WRITERS[format];
}

/** Media types each format answers to; a range like text/* or *\/* matches by prefix. */
const MEDIA: Readonly<Record<ExportFormat, readonly string[]>> = {
  ndjson: ["application/x-ndjson", "application/ndjson", "application/*", "*/*"],
  csv: ["text/csv", "text/*"],
};

/**
 * The format an Accept header asks for: the acceptable range with the highest q that one of
 * the formats answers (the first listed on a tie), undefined when none does. No header: NDJSON.
 */
export function negotiateFormat(accept: string | undefined): ExportFormat | undefined {
  if (accept === undefined || accept.trim() === "") return "ndjson";
  let best: { format: ExportFormat; q: number } | undefined;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    const format = EXPORT_FORMATS.find((f) => MEDIA[f].includes(range));
    if (format !== undefined && (best === undefined || q > best.q)) best = { format, q };
  }
  return best?.format;
}
