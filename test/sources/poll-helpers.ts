/**
 * Runs a connector's poll the way the scheduler does (a fresh polite client per poll), collecting
 * its batches and the cursor to resume from, without an index: the connector suites check what
 * a poll reads and asks for; the sync suites check what reaches the index.
 */
import type { Post } from "../../src/model/post.js";
import type { Politeness } from "../../src/sources/http/polite-client.js";
import { createPoliteClient } from "../../src/sources/http/polite-client.js";
import type { Connector, SourceBatch, SourceSettings } from "../../src/sources/source.js";

/** What one poll produced. */
export interface PollResult {
  batches: SourceBatch[];
  posts: Post[];
  cursor: string | undefined;
  requests: number;
  error?: unknown;
}

/** Polls once from `cursor`; an error ends the poll and is returned with what came before it. */
export async function pollOnce(
  connector: Connector,
  settings: SourceSettings,
  cursor: string | undefined,
  politeness: Partial<Politeness> = {},
  maxItems = 1000,
): Promise<PollResult> {
  const controller = new AbortController();
  const http = createPoliteClient(
    { minIntervalMs: 0, backoffBaseMs: 20, backoffCapMs: 200, ...politeness },
    controller.signal,
  );
  const batches: SourceBatch[] = [];
  let last = cursor;
  try {
    for await (const batch of connector.poll({
      settings: connector.validate(settings),
      cursor,
      http,
      maxItems,
      signal: controller.signal,
      log: () => undefined,
      now: Date.now,
    })) {
      batches.push(batch);
      last = batch.cursor;
    }
  } catch (error) {
    return { batches, posts: batches.flatMap((b) => b.posts), cursor: last, requests: http.requests, error };
  }
  return { batches, posts: batches.flatMap((b) => b.posts), cursor: last, requests: http.requests };
}
