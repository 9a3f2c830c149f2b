/**
 * Hacker News CSV export: id, title, url, num_points, num_comments, author, created_at
 * ("M/D/YYYY H:MM", UTC). No body text: content is empty, and the post's url is the HN item page
 * (the linked article is not the discussion).
 */
import { count, text, usDateTimeUtcToMs } from "../field-values.js";
import type { ByteSource, ReadItem } from "../read-item.js";
import { skip } from "../read-item.js";
import { csvRows, isCsvRow } from "./csv-rows.js";
import { hnPost } from "./hn-post.js";

/** Reads a Hacker News CSV stream. */
export async function* readHnCsv(bytes: ByteSource): AsyncGenerator<ReadItem> {
  for await (const item of csvRows(bytes)) {
    if (!isCsvRow(item)) {
      yield item;
      continue;
    }
    const { row, line } = item;
    const nativeId = text(row["id"]);
    if (nativeId === undefined || !/^\d+$/.test(nativeId)) {
      yield skip(line, "missing_id", nativeId === undefined ? undefined : `id ${JSON.stringify(nativeId)}`);
      continue;
    }
    const title = text(row["title"]);
    if (title === undefined) {
      yield skip(line, "missing_title", `id ${nativeId}`);
      continue;
    }
    const created = usDateTimeUtcToMs(row["created_at"]);
    if (created === undefined) {
      yield skip(line, "bad_date", `id ${nativeId}: created_at ${JSON.stringify(row["created_at"] ?? null)}`);
      continue;
    }
    yield {
      line,
      post: hnPost({
        nativeId,
        title,
        content: "",
        author: text(row["author"]) ?? "",
        upvotes: count(row["num_points"]),
        comments: count(row["num_comments"]),
        created,
      }),
    };
  }
}
