/**
 * Groups reader output into batches of posts for enrichment, embedding and writing, keeping the
 * record count each batch ends at (for checkpoints) and the skips met since the previous batch.
 * The last batch may hold fewer posts, or none (trailing skips only).
 */
import type { Post } from "../model/post.js";
import type { ReadItem, Skip } from "./read-item.js";

/** One batch. `endRecord`: records consumed from the start of the input through this batch. */
export interface Batch {
  posts: Post[];
  skips: Skip[];
  endRecord: number;
}

/**
 * Batches `items`, ignoring the first `skipRecords` (already ingested) and stopping after
 * `maxPosts` posts when given.
 */
export async function* batches(
  items: AsyncIterable<ReadItem>,
  size: number,
  skipRecords = 0,
  maxPosts = Infinity,
): AsyncGenerator<Batch> {
  let record = 0;
  let posts: Post[] = [];
  let skips: Skip[] = [];
  let taken = 0;
  for await (const item of items) {
    record += 1;
    if (record <= skipRecords) continue;
    if ("skip" in item) skips.push(item.skip);
    else {
      posts.push(item.post);
      taken += 1;
    }
    if (posts.length >= size || taken >= maxPosts) {
      yield { posts, skips, endRecord: record };
      posts = [];
      skips = [];
      if (taken >= maxPosts) return;
    }
  }
  if (posts.length > 0 || skips.length > 0) yield { posts, skips, endRecord: record };
}
