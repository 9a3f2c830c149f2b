/**
 * The stages of one poll, overlapped the way `ingest` overlaps them. The connector's batches
 * are fetched ahead of the writes (up to {@link SYNC_POSTS_AHEAD} posts waiting) and each is
 * handed to embedding and enrichment the moment it arrives, so the embedder's queue does not
 * run dry while the next page is fetched, nor the fetch wait for an embedding to finish. Writes
 * go in the connector's order; each takes every batch already prepared (up to
 * {@link SYNC_WRITE_POSTS} posts), so a source that answers faster than the embedder is written
 * in few large upserts, and one that answers slowly in small ones without waiting for more.
 * A write's cursor is its last batch's, saved by `write` after the rows are stored.
 */
import type { IndexedPost, Post } from "../../model/post.js";
import type { SourceBatch } from "../source.js";

/** Posts fetched and not yet written before the fetch waits: as many as `ingest` keeps ahead. */
export const SYNC_POSTS_AHEAD = 2048;
/** Batches fetched and not yet written before the fetch waits (bounds runs of batches without posts). */
export const SYNC_BATCHES_AHEAD = 32;
/** Most posts in one write: `ingest`'s default batch, whose fixed write cost it amortises. */
export const SYNC_WRITE_POSTS = 1024;

/** One write: the batches it covers, in order, and their rows. */
export interface PreparedWrite {
  batches: SourceBatch[];
  rows: IndexedPost[];
}

/** Limits of {@link runBatchPipeline}; tests shrink them. */
export interface PipelineLimits {
  postsAhead: number;
  batchesAhead: number;
  writePosts: number;
}

/** The limits a poll runs with. */
export const SYNC_LIMITS: PipelineLimits = {
  postsAhead: SYNC_POSTS_AHEAD,
  batchesAhead: SYNC_BATCHES_AHEAD,
  writePosts: SYNC_WRITE_POSTS,
};

interface Pending {
  batch: SourceBatch;
  rows: Promise<IndexedPost[]>;
  /** Settled, and how. */
  state: "pending" | "ok" | "failed";
}

/**
 * Runs `batches` through `prepare` and `write`. Resolves when every batch is written; rejects
 * with the first failure (fetch, preparation or write) once the batches before it are written,
 * and stops fetching at that point.
 */
export async function runBatchPipeline(
  batches: AsyncIterable<SourceBatch>,
  prepare: (posts: Post[]) => Promise<IndexedPost[]>,
  write: (prepared: PreparedWrite) => Promise<void>,
  limits: PipelineLimits = SYNC_LIMITS,
): Promise<void> {
  const queue: Pending[] = [];
  let fetchError: { error: unknown } | undefined;
  let fetchDone = false;
  let stopping = false;
  let wakeWriter: (() => void) | undefined;
  let wakeFetcher: (() => void) | undefined;
  const nudgeWriter = (): void => {
    const wake = wakeWriter;
    wakeWriter = undefined;
    wake?.();
  };
  const nudgeFetcher = (): void => {
    const wake = wakeFetcher;
    wakeFetcher = undefined;
    wake?.();
  };
  const full = (): boolean =>
    queue.length >= limits.batchesAhead || queue.reduce((n, p) => n + p.batch.posts.length, 0) >= limits.postsAhead;

  const fetcher = (async (): Promise<void> => {
    const iterator = batches[Symbol.asyncIterator]();
    let finished = false;
    try {
      while (!stopping) {
        // At least one batch may wait whatever its size, so a batch larger than the bound still moves.
        while (!stopping && queue.length > 0 && full()) await new Promise<void>((resolve) => (wakeFetcher = resolve));
        if (stopping) break;
        const step = await iterator.next();
        if (step.done === true) {
          finished = true;
          break;
        }
        const pending: Pending = { batch: step.value, rows: prepare(step.value.posts), state: "pending" };
        pending.rows.then(
          () => {
            pending.state = "ok";
            nudgeWriter();
          },
          () => {
            pending.state = "failed";
            nudgeWriter();
          },
        );
        queue.push(pending);
        nudgeWriter();
      }
      // Stopped early: let the connector's generator run its cleanup.
      if (!finished) await iterator.return?.();
    } catch (error) {
      fetchError = { error };
    } finally {
      fetchDone = true;
      nudgeWriter();
    }
  })();

  try {
    for (;;) {
      while (queue.length === 0 && !fetchDone) await new Promise<void>((resolve) => (wakeWriter = resolve));
      const first = queue[0];
      if (first === undefined) break;
      const rows = [...(await first.rows)];
      const taken = [queue.shift()!];
      // A batch without posts only moves the cursor (the Hacker News walk's starting point):
      // it is saved at once, never held back until later batches are written. A batch already
      // fetched and still being prepared is waited for while the write has room, so a source
      // faster than the embedder is written in full-size upserts rather than one per page.
      while (first.batch.posts.length > 0) {
        const next = queue[0];
        if (next === undefined || next.batch.posts.length === 0) break;
        if (rows.length + next.batch.posts.length > limits.writePosts) break;
        if (next.state === "pending") await next.rows.catch(() => undefined);
        if (next.state !== "ok") break;
        rows.push(...(await next.rows));
        taken.push(queue.shift()!);
      }
      nudgeFetcher();
      await write({ batches: taken.map((p) => p.batch), rows });
    }
    if (fetchError !== undefined) throw fetchError.error;
  } finally {
    stopping = true;
    nudgeFetcher();
    await fetcher;
  }
}
