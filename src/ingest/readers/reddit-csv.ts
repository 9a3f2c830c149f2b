/**
 * CSV with Reddit API column names (created_utc, id, title, selftext, score, num_comments,
 * permalink, ...), as in the reddit_top2013 raw_csv files. These files have no subreddit column:
 * the subreddit comes from the permalink path (/r/<sub>/comments/...).
 */
import type { ByteSource, ReadItem } from "../read-item.js";
import { csvRows, isCsvRow } from "./csv-rows.js";
import { redditSubmission } from "./reddit-post.js";

/** Reads a Reddit-columns CSV stream. */
export async function* readRedditCsv(bytes: ByteSource): AsyncGenerator<ReadItem> {
  for await (const item of csvRows(bytes)) {
    if (isCsvRow(item)) yield redditSubmission(item.row, item.line);
    else yield item;
  }
}
