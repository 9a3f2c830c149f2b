/**
 * Any JSON Lines file whose field names are given by a map (`--map id=post_id,title=headline,
 * content=body,created=ts`), or that already uses the post model's names (id, title, content,
 * subforum, author, upvotes, comments, created, url), which needs no map: an export of another
 * system shaped like our API's posts loads as it is. Values may be dotted paths into nested
 * objects ("data.title"). id, title and created must be mapped; the rest default to "" or 0.
 * `created` accepts epoch seconds, epoch ms or ISO 8601. Content is treated as markdown (plain
 * text passes through).
 */
import { postId } from "../../model/post.js";
import { anyTimeToMs, count, isObject, pathValue, text } from "../field-values.js";
import { isJsonRecord, jsonRecords } from "../json-records.js";
import { decodeEntities, markdownToText, singleLine } from "../plain-text.js";
import type { ByteSource, ReadItem, RecordReader } from "../read-item.js";
import { skip } from "../read-item.js";

/** Post fields a map can name. */
export const MAPPABLE_FIELDS = [
  "id",
  "title",
  "content",
  "subforum",
  "author",
  "upvotes",
  "comments",
  "created",
  "url",
] as const;
/** One of {@link MAPPABLE_FIELDS}. */
export type MappableField = (typeof MAPPABLE_FIELDS)[number];
/** Post field -> source field path. */
export type FieldMap = Partial<Record<MappableField, string>>;

const REQUIRED: readonly MappableField[] = ["id", "title", "created"];

/** The map of a file that names its fields as the post model does: each field read from its own name. */
export const POST_FIELD_MAP: FieldMap = Object.fromEntries(MAPPABLE_FIELDS.map((f) => [f, f]));

/** Thrown for an unusable --map value; the message says what to write instead. */
export class FieldMapError extends Error {
  override readonly name = "FieldMapError";
}

/** Parses "id=post_id,title=headline". Throws FieldMapError for unknown or missing fields. */
export function parseFieldMap(spec: string): FieldMap {
  const map: FieldMap = {};
  for (const pair of spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf("=");
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (eq <= 0 || value === "")
      throw new FieldMapError(`--map entries must look like field=source_field, got "${pair}"`);
    if (!(MAPPABLE_FIELDS as readonly string[]).includes(key)) {
      throw new FieldMapError(`--map: unknown field "${key}"; mappable fields are ${MAPPABLE_FIELDS.join(", ")}`);
    }
    map[key as MappableField] = value;
  }
  const missing = REQUIRED.filter((f) => map[f] === undefined);
  if (missing.length > 0)
    throw new FieldMapError(`--map must name ${missing.join(", ")} (e.g. --map id=post_id,title=headline,created=ts)`);
  return map;
}

/** Builds a reader for generic JSONL with `map`; posts get `source` (e.g. "forum"). */
export function genericJsonlReader(map: FieldMap, source: string): RecordReader {
  const get = (record: Record<string, unknown>, field: MappableField): unknown => {
    const path = map[field];
    return path === undefined ? undefined : pathValue(record, path);
  };
  return async function* readGenericJsonl(bytes: ByteSource): AsyncGenerator<ReadItem> {
    for await (const item of jsonRecords(bytes)) {
      if (!isJsonRecord(item)) {
        yield item;
        continue;
      }
      const { value: record, line } = item;
      if (!isObject(record)) {
        yield skip(line, "bad_json", "not a JSON object");
        continue;
      }
      const nativeId = text(get(record, "id"));
      if (nativeId === undefined) {
        yield skip(line, "missing_id", `field ${map.id}`);
        continue;
      }
      const title = text(get(record, "title"));
      if (title === undefined) {
        yield skip(line, "missing_title", `id ${nativeId}`);
        continue;
      }
      const created = anyTimeToMs(get(record, "created"));
      if (created === undefined) {
        yield skip(
          line,
          "bad_date",
          `id ${nativeId}: ${map.created} ${JSON.stringify(get(record, "created") ?? null)}`,
        );
        continue;
      }
      const content = get(record, "content");
      yield {
        line,
        post: {
          id: postId(source, nativeId),
          source,
          nativeId,
          title: singleLine(decodeEntities(title)),
          content: typeof content === "string" ? markdownToText(content) : "",
          subforum: text(get(record, "subforum")) ?? "",
          author: text(get(record, "author")) ?? "",
          upvotes: count(get(record, "upvotes")),
          comments: count(get(record, "comments")),
          created,
          url: text(get(record, "url")) ?? "",
        },
      };
    }
  };
}
