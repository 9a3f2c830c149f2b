/**
 * Hacker News API items (`/v0/item/<id>.json`): one item document, a JSON array of items, or JSON
 * Lines of items. Only stories are posts; comments, jobs and polls are not_a_post, and items
 * flagged `deleted` or `dead` are skipped as deleted. `text` is HTML and becomes plain text.
 */
import { count, epochSecondsToMs, isObject, text } from "../field-values.js";
import { isJsonRecord, jsonRecords } from "../json-records.js";
import { htmlToText } from "../plain-text.js";
import type { ByteSource, ReadItem } from "../read-item.js";
import { skip } from "../read-item.js";
import { hnPost } from "./hn-post.js";

/**
 * One HN API item as a post or a skip; the live Hacker News source maps items with this too, so
 * a story first read from a dump and later polled is the same post.
 */
export function hnItem(item: unknown, line: number): ReadItem {
  if (!isObject(item)) return skip(line, "bad_json", "not a JSON object");
  const nativeId = text(item["id"]);
  if (nativeId === undefined || !/^\d+$/.test(nativeId)) return skip(line, "missing_id");
  if (item["deleted"] === true || item["dead"] === true) return skip(line, "deleted", `id ${nativeId}`);
  if (item["type"] !== "story")
    return skip(line, "not_a_post", `id ${nativeId}: type ${JSON.stringify(item["type"] ?? null)}`);
  const title = text(item["title"]);
  if (title === undefined) return skip(line, "missing_title", `id ${nativeId}`);
  const created = epochSecondsToMs(item["time"]);
  if (created === undefined)
    return skip(line, "bad_date", `id ${nativeId}: time ${JSON.stringify(item["time"] ?? null)}`);
  const content = typeof item["text"] === "string" ? htmlToText(item["text"]) : "";
  return {
    line,
    post: hnPost({
      nativeId,
      title,
      content,
      author: text(item["by"]) ?? "",
      upvotes: count(item["score"]),
      comments: count(item["descendants"]),
      created,
    }),
  };
}

/** Reads HN item JSON (document, array, or JSON Lines). */
export async function* readHnJson(bytes: ByteSource): AsyncGenerator<ReadItem> {
  for await (const record of jsonRecords(bytes, { allowDocument: true })) {
    if (!isJsonRecord(record)) yield record;
    else if (Array.isArray(record.value)) for (const item of record.value) yield hnItem(item, record.line);
    else yield hnItem(record.value, record.line);
  }
}
