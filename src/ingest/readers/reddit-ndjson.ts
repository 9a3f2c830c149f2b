/**
 * Reddit submission dumps in the Pushshift / Arctic Shift format: one submission object a line
 * (the caller has already decompressed .zst/.gz). Streams; constant memory.
 */

import { isObject } from "../field-values.js";
import { isJsonRecord, jsonRecords } from "../json-records.js";
import type { ByteSource, ReadItem } from "../read-item.js";
import { skip } from "../read-item.js";
import { redditSubmission } from "./reddit-post.js";

/** Reads a submissions NDJSON stream. */
export async function* readRedditNdjson(bytes: ByteSource): AsyncGenerator<ReadItem> {
  for await (const item of jsonRecords(bytes)) {
    if (!isJsonRecord(item)) yield item;
    else if (!isObject(item.value)) yield skip(item.line, "bad_json", "not a JSON object");
    else yield redditSubmission(item.value, item.line);
  }
}
