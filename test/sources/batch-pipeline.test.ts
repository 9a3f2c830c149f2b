/**
 * The poll's overlapped stages (src/sources/sync/batch-pipeline.ts) on a scripted connector:
 * writes come in the connector's order, prepared batches are joined into one write whose cursor
 * is the last one's, a batch still being prepared is waited for while the write has room, fetching runs ahead of a slow write but no further than the limit, and a
 * failure surfaces only after the batches before it are written, with the connector stopped.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { IndexedPost, Post } from "../../src/model/post.js";
import type { SourceBatch } from "../../src/sources/source.js";
import type { PipelineLimits, PreparedWrite } from "../../src/sources/sync/batch-pipeline.js";
import { runBatchPipeline } from "../../src/sources/sync/batch-pipeline.js";

function post(n: number): Post {
  return {
    id: `test:${n}`,
    nativeId: String(n),
    source: "test",
    title: `post ${n}`,
    content: "",
    subforum: "",
    author: "a",
    upvotes: 0,
    comments: 0,
    created: 0,
    url: "",
  };
}

/** A batch of `size` posts numbered from `from`, with cursor `c<index>`. */
function batch(index: number, from: number, size: number): SourceBatch {
  return { posts: Array.from({ length: size }, (_, i) => post(from + i)), cursor: `c${index}`, seen: size };
}

/** A connector's poll over `sizes`, logging each fetch; throws at `failAt` when given. */
function scripted(
  sizes: number[],
  log: string[],
  options: { failAt?: number; fetchMs?: number } = {},
): AsyncIterable<SourceBatch> & { closed: boolean } {
  const state = { closed: false };
  async function* poll(): AsyncGenerator<SourceBatch> {
    try {
      let from = 0;
      for (const [i, size] of sizes.entries()) {
        if (options.fetchMs !== undefined) await sleep(options.fetchMs);
        if (i === options.failAt) throw new Error(`fetch ${i} failed`);
        log.push(`fetched c${i}`);
        yield batch(i, from, size);
        from += size;
      }
    } finally {
      state.closed = true;
    }
  }
  const it = poll();
  return {
    [Symbol.asyncIterator]: () => it,
    get closed() {
      return state.closed;
    },
  };
}

const rowsOf = (posts: Post[]): IndexedPost[] =>
  posts.map((p) => ({ ...p, vector: new Float32Array(1) }) as unknown as IndexedPost);

const limits = (o: Partial<PipelineLimits> = {}): PipelineLimits => ({
  postsAhead: 1000,
  batchesAhead: 100,
  writePosts: 1000,
  ...o,
});

describe("the poll's batch pipeline", () => {
  it("writes in order, joins prepared batches up to the write size, and saves the last cursor", async () => {
    const log: string[] = [];
    const writes: PreparedWrite[] = [];
    let firstWrite = true;
    await runBatchPipeline(
      scripted([0, 3, 3, 3, 3, 3], log),
      async (posts) => rowsOf(posts),
      async (w) => {
        writes.push(w);
        // The first real write is slow, so the batches behind it are all prepared when it ends.
        if (firstWrite && w.rows.length > 0) {
          firstWrite = false;
          await sleep(100);
        }
      },
      limits({ writePosts: 7 }),
    );
    assert.deepEqual(
      writes.map((w) => w.batches.map((b) => b.cursor)),
      [["c0"], ["c1"], ["c2", "c3"], ["c4", "c5"]],
      "the empty first batch alone; then at most 7 posts per write",
    );
    assert.deepEqual(
      writes.flatMap((w) => w.rows.map((r) => r.id)),
      Array.from({ length: 15 }, (_, i) => `test:${i}`),
    );
  });

  it("a source faster than the embedder is written in full-size writes, not one per page", async () => {
    const writes: PreparedWrite[] = [];
    await runBatchPipeline(
      scripted([4, 4, 4, 4, 4, 4], []),
      async (posts) => {
        // Preparation (the embedder) is the slow stage: each batch takes a while, in order.
        await sleep(20);
        return rowsOf(posts);
      },
      async (w) => void writes.push(w),
      limits({ writePosts: 12 }),
    );
    assert.deepEqual(
      writes.map((w) => w.batches.map((b) => b.cursor)),
      [
        ["c0", "c1", "c2"],
        ["c3", "c4", "c5"],
      ],
      "batches already fetched and still being prepared are waited for while the write has room",
    );
  });

  it("fetches ahead of a slow write, but not past the posts-ahead limit", async () => {
    const log: string[] = [];
    await runBatchPipeline(
      scripted([5, 5, 5, 5, 5, 5], log),
      async (posts) => rowsOf(posts),
      async (w) => {
        log.push(`write ${w.batches.map((b) => b.cursor).join("+")}`);
        await sleep(50);
      },
      limits({ postsAhead: 10, writePosts: 5 }),
    );
    // While c0 is written, c1 and c2 are fetched (10 posts waiting), and no more.
    const beforeSecondWrite = log.slice(0, log.indexOf("write c1"));
    assert.equal(beforeSecondWrite.filter((l) => l.startsWith("fetched")).length, 3);
    assert.deepEqual(
      log.filter((l) => l.startsWith("write")),
      ["write c0", "write c1", "write c2", "write c3", "write c4", "write c5"],
    );
  });

  it("a fetch failure surfaces after every batch before it is written", async () => {
    const log: string[] = [];
    const written: string[] = [];
    const source = scripted([2, 2, 2, 2], log, { failAt: 2 });
    await assert.rejects(
      runBatchPipeline(
        source,
        async (posts) => rowsOf(posts),
        async (w) => {
          await sleep(20);
          written.push(...w.batches.map((b) => b.cursor));
        },
        limits(),
      ),
      /fetch 2 failed/,
    );
    assert.deepEqual(written, ["c0", "c1"]);
  });

  it("a preparation failure writes the batches before it, none after, and stops the connector", async () => {
    const log: string[] = [];
    const written: string[] = [];
    const source = scripted([2, 2, 2, 2, 2, 2, 2, 2], log, { fetchMs: 5 });
    await assert.rejects(
      runBatchPipeline(
        source,
        async (posts) => {
          if (posts[0]?.id === "test:4") throw new Error("embedder failed");
          return rowsOf(posts);
        },
        async (w) => void written.push(...w.batches.map((b) => b.cursor)),
        limits(),
      ),
      /embedder failed/,
    );
    assert.deepEqual(written, ["c0", "c1"]);
    assert.equal(source.closed, true, "the connector's generator was closed");
    assert.ok(log.length < 8, `fetching stopped early (${log.length} batches fetched)`);
  });

  it("a write failure stops the poll; later batches are not written", async () => {
    const written: string[] = [];
    await assert.rejects(
      runBatchPipeline(
        scripted([1, 1, 1], []),
        async (posts) => rowsOf(posts),
        async (w) => {
          if (w.batches[0]!.cursor === "c1") throw new Error("lease lost");
          written.push(...w.batches.map((b) => b.cursor));
        },
        limits({ writePosts: 1 }),
      ),
      /lease lost/,
    );
    assert.deepEqual(written, ["c0"]);
  });
});
