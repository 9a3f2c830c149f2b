/**
 * The streaming ingest of one input file: read -> batch -> embed -> enrich -> upsert ->
 * checkpoint. Embedding is the bottleneck, so the pipeline keeps it fed: while the embedder's
 * workers chew on batch N, this thread reads and parses batch N+1 and hands it to the
 * embedder, whose shared queue starts it the moment a worker frees up. Writes and checkpoints
 * happen strictly in input order, at most {@link MAX_BATCHES_AHEAD} batches behind the reader,
 * so memory stays bounded by a few batches whatever the file size. {@link beginIngestFile}
 * returns once the file is read, with its writes still going, so that several files can share
 * one pipeline (ingest-files.ts).
 */
import { setMaxListeners } from "node:events";
import path from "node:path";
import { postEmbeddingText } from "../enrich/embed-text.js";
import type { Embedder } from "../enrich/embedder.js";
import type { SearchIndex, UpsertResult } from "../index/search-index.js";
import type { IndexedPost, Post } from "../model/post.js";
import type { EventOrigin } from "../monitors/monitor-event.js";
import type { UpsertObserver } from "../monitors/monitor-percolator.js";
import type { Batch } from "./batches.js";
import { batches } from "./batches.js";
import type { CheckpointStore, InputIdentity } from "./checkpoint.js";
import { inputIdentity } from "./checkpoint.js";
import { DETECT_BYTES, detectFormat } from "./detect-format.js";
import type { Enricher } from "./enricher.js";
import type { Format, ReaderOptions } from "./formats.js";
import { readerFor } from "./formats.js";
import type { IngestStats } from "./ingest-stats.js";
import { addStats, emptyStats, skippedTotal } from "./ingest-stats.js";
import { openInput, peek } from "./open-input.js";
import type { ProgressSink } from "./progress.js";

/** Posts per embed call within a batch (see embedAndEnrich). */
export const EMBED_PART = 64;
/** Batches read and handed to the embedder before the oldest one is written. */
export const MAX_BATCHES_AHEAD = 2;
/** Skipped records logged one by one per file; beyond this they are only counted. */
export const MAX_SKIP_LINES_LOGGED = 1000;

/** What the pipeline needs from the outside. */
export interface IngestDeps {
  /** Opened with the embedder's model and dimensions. */
  index: SearchIndex;
  embedder: Embedder;
  enricher: Enricher;
  checkpoints: CheckpointStore;
  /** One line of log output (skips, resume notices, index rejections); no trailing newline. */
  log: (line: string) => void;
  progress?: ProgressSink;
  /**
   * Told the rows each upsert wrote (rejected ones left out), before the checkpoint moves past
   * them: monitor matching writes its outbox events here, so a crash cannot lose one.
   */
  upserted?: UpsertObserver;
  /** What is writing, for the events: "ingest" (the default) or "sync" (live sources). */
  origin?: EventOrigin;
}

/** Per-file options. */
export interface IngestFileOptions extends ReaderOptions {
  /** Forced format; detected from name and content when absent. */
  format?: Format;
  /** Posts per batch. */
  batchSize: number;
  /** Stop after this many posts in this call (the checkpoint keeps the place). */
  limit?: number;
  signal?: AbortSignal;
  /** For progress: this file's position in the run and posts/skips already counted. */
  fileIndex?: number;
  fileCount?: number;
  postsBefore?: number;
  skippedBefore?: number;
}

/** Outcome of one file. `stats` covers the whole file, earlier interrupted runs included. */
export interface FileResult {
  path: string;
  /** "empty" for an input with nothing in it but blank lines (or a byte-order mark). */
  format: Format | "empty";
  stats: IngestStats;
  /** Posts read in this call (for --limit accounting and throughput). */
  postsThisRun: number;
  /** False when --limit stopped the file early. */
  complete: boolean;
  /** Records skipped because an earlier run had already written them. */
  resumedFrom: number;
}

/**
 * A file that stopped part-way (interrupted, index failure, unreadable data). `partial` counts
 * what was written before it stopped, which the checkpoint also recorded.
 */
export class IngestFileError extends Error {
  override readonly name = "IngestFileError";
  constructor(
    message: string,
    readonly partial: FileResult,
    cause: unknown,
  ) {
    super(message, { cause });
  }
}

/** A file read to its end (or its limit) whose last batches may still be in the write queue. */
export interface ReadFile {
  /** Posts and skipped records read in this call. */
  posts: number;
  skipped: number;
  /** Settles when the file's last batch is written: its outcome, or an IngestFileError. */
  result: Promise<FileResult>;
}

/**
 * The batch's posts embedded and enriched, in input order. A post whose stored version has the
 * same embedding text (title and opening, embed-text.ts) keeps its stored vector: the vector is a
 * function of that text and the model, which open() checked, so re-ingesting a dump costs the
 * embedding of the posts whose text changed, not of every post. The rest go to the embedder in
 * parts of EMBED_PART posts, longest texts first, and each part is enriched as soon as its
 * vectors are back (enrichment reads them: sentiment model, lead heads, topic). So enrichment
 * overlaps the embedding of the parts after it, instead of starting when the batch's last vector
 * arrives; at the end of a run, with nothing left queued, that wait left both embedder workers
 * idle. Shortest last keeps the final part's enrichment small.
 */
function embedAndEnrich(
  posts: readonly Post[],
  stored: ReadonlyMap<string, IndexedPost>,
  deps: PostWriteDeps,
  signal: AbortSignal | undefined,
): Promise<IndexedPost[]> {
  if (posts.length === 0) return Promise.resolve([]);
  const texts = posts.map(postEmbeddingText);
  const kept = new Map<number, Float32Array>();
  texts.forEach((text, i) => {
    const before = stored.get(posts[i]!.id);
    if (before !== undefined && postEmbeddingText(before) === text) kept.set(i, before.vector);
  });
  const order = texts
    .map((_, i) => i)
    .filter((i) => !kept.has(i))
    .sort((a, b) => texts[b]!.length - texts[a]!.length);
  const rows = new Array<IndexedPost>(posts.length);
  const enrichPart = async (part: readonly number[], vectors: readonly Float32Array[]): Promise<void> => {
    const enriched = await deps.enricher.enrich(
      part.map((i) => posts[i]!),
      vectors,
    );
    enriched.forEach((post, k) => {
      rows[part[k]!] = { ...post, vector: vectors[k]! };
    });
  };
  const parts: Promise<void>[] = [];
  if (kept.size > 0) parts.push(enrichPart([...kept.keys()], [...kept.values()]));
  for (let start = 0; start < order.length; start += EMBED_PART) {
    const part = order.slice(start, start + EMBED_PART);
    const done = deps.embedder
      .embed(
        part.map((i) => texts[i]!),
        signal,
      )
      .then((vectors) => enrichPart(part, vectors));
    done.catch(() => undefined); // surfaces through Promise.all below
    parts.push(done);
  }
  return Promise.all(parts).then(() => rows);
}

/** The stored versions of the batch's posts, by id (none for ids the index knows it lacks). */
async function storedVersions(
  posts: readonly Post[],
  deps: PostWriteDeps,
  signal: AbortSignal | undefined,
): Promise<Map<string, IndexedPost>> {
  if (posts.length === 0) return new Map();
  const stored = await deps.index.getIndexed([...new Set(posts.map((p) => p.id))], signal);
  return new Map(stored.map((p) => [p.id, p]));
}

/** What writing posts needs: the index and the embedding and enrichment in front of it. */
export type PostWriteDeps = Pick<IngestDeps, "index" | "embedder" | "enricher" | "upserted" | "origin">;

/**
 * The batch's posts as index rows: stored versions looked up, then embedded (changed text only)
 * and enriched. The first half of every write, whether the posts come from a file or a live
 * source.
 */
export function prepareRows(
  posts: readonly Post[],
  deps: PostWriteDeps,
  signal: AbortSignal | undefined,
): Promise<IndexedPost[]> {
  return storedVersions(posts, deps, signal).then((stored) => embedAndEnrich(posts, stored, deps, signal));
}

/**
 * Writes prepared rows to the index: the one place every ingested post passes through on its
 * way in (file batches and live-source polls alike), so whatever must see each write hooks here.
 */
export async function writeRows(rows: readonly IndexedPost[], deps: PostWriteDeps): Promise<UpsertResult> {
  const result = await deps.index.upsert(rows);
  if (deps.upserted !== undefined) {
    const rejected = new Set(result.failed.map((f) => f.id));
    await deps.upserted(rejected.size === 0 ? rows : rows.filter((r) => !rejected.has(r.id)), deps.origin ?? "ingest");
  }
  return result;
}

/**
 * Embeds, enriches and writes a batch of posts read from anywhere but a file (a live source's
 * poll): the same steps, in the same order, as a batch of `threadsight ingest`.
 */
export async function ingestPosts(
  posts: readonly Post[],
  deps: PostWriteDeps,
  signal?: AbortSignal,
): Promise<UpsertResult> {
  if (posts.length === 0) return { inserted: 0, updated: 0, unchanged: 0, failed: [] };
  const rows = await prepareRows(posts, deps, signal);
  signal?.throwIfAborted();
  return writeRows(rows, deps);
}

/** Whether a head read to the input's end (shorter than DETECT_BYTES) holds only a byte-order mark and white space. */
function isBlank(head: Buffer): boolean {
  return (
    head.length < DETECT_BYTES &&
    head
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .trim() === ""
  );
}

/** Ingests one file; see the module comment. Throws on unreadable input or index failure. */
export async function ingestFile(file: string, options: IngestFileOptions, deps: IngestDeps): Promise<FileResult> {
  return (await beginIngestFile(file, options, deps)).result;
}

/**
 * Reads `file` into the pipeline and returns once every record has been read and handed on;
 * `result` settles when the last write is done. The file's first write waits for `after` (the
 * previous file's result; its failure is that file's to report), so writes stay in input order
 * across files. Throws (an IngestFileError once something was read) when reading fails, after
 * the writes in progress have settled.
 */
export async function beginIngestFile(
  file: string,
  options: IngestFileOptions,
  deps: IngestDeps,
  after: Promise<unknown> = Promise.resolve(),
): Promise<ReadFile> {
  const run = fileSignal(options.signal, options.batchSize);
  try {
    const begun = await beginFile(file, { ...options, signal: run.signal }, deps, after);
    begun.result.finally(run.release).catch(() => undefined);
    return begun;
  } catch (err) {
    run.release();
    throw err;
  }
}

/**
 * The file's own signal, aborted with the caller's. Every embed call of the batches in flight
 * listens to it (a 1,024-post batch alone is 16 calls of {@link EMBED_PART}), more than the 10
 * listeners past which Node prints "Possible EventTarget memory leak detected" on every
 * `threadsight ingest`. The count is bounded (the batches ahead, their parts) and each listener
 * goes when its call settles, so the limit is raised to that bound, not switched off; the
 * caller's signal keeps one listener per file in flight.
 */
function fileSignal(
  outer: AbortSignal | undefined,
  batchSize: number,
): { signal: AbortSignal | undefined; release: () => void } {
  if (outer === undefined) return { signal: undefined, release: () => undefined };
  const inner = new AbortController();
  setMaxListeners((MAX_BATCHES_AHEAD + 2) * Math.ceil(Math.max(1, batchSize) / EMBED_PART) + 1, inner.signal);
  const forward = (): void => inner.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener("abort", forward, { once: true });
  return { signal: inner.signal, release: () => outer.removeEventListener("abort", forward) };
}

async function beginFile(
  file: string,
  options: IngestFileOptions,
  deps: IngestDeps,
  after: Promise<unknown>,
): Promise<ReadFile> {
  const signal = options.signal;
  signal?.throwIfAborted();
  const absolute = path.resolve(file);
  const input = await openInput(absolute);
  const { head, bytes, close } = await peek(input.bytes, DETECT_BYTES);
  if (options.format === undefined && isBlank(head)) {
    // Nothing to read in any format, so no format to ask for: a scheduled dump with no posts in
    // it is an ordinary run, not a failure.
    await close();
    deps.log(`${absolute}: empty; nothing to read`);
    const empty: FileResult = {
      path: absolute,
      format: "empty",
      stats: emptyStats(),
      postsThisRun: 0,
      complete: true,
      resumedFrom: 0,
    };
    // Settled after the previous file, like any file's last write: the next file's writes wait
    // for this result, and must still come after the previous file's.
    return {
      posts: 0,
      skipped: 0,
      result: after.then(
        () => empty,
        () => empty,
      ),
    };
  }
  let format: Format;
  let reader: ReturnType<typeof readerFor>;
  let checkpoint: Awaited<ReturnType<CheckpointStore["load"]>>;
  let identity: InputIdentity;
  try {
    format =
      options.format ??
      detectFormat(path.basename(absolute).replace(/\.(zst|gz)$/i, ""), head, options.map !== undefined);
    reader = readerFor(format, options);
    // The checkpoint key: a hash of a few MiB sampled from the file (see checkpoint.ts).
    identity = await inputIdentity(absolute);
    checkpoint = await deps.checkpoints.load(identity);
  } catch (err) {
    await close();
    throw err;
  }
  const resumedFrom = checkpoint?.records ?? 0;
  const stats = checkpoint?.stats ?? emptyStats();
  const skippedAtStart = skippedTotal(stats);
  if (checkpoint !== undefined)
    deps.log(
      `${absolute}: resuming after record ${resumedFrom.toLocaleString("en-US")} (checkpoint ${checkpoint.updatedAt})`,
    );

  let logged = 0;
  let postsThisRun = 0;
  const limit = options.limit ?? Infinity;
  const report = (): void =>
    deps.progress?.update({
      file: absolute,
      fileIndex: options.fileIndex ?? 1,
      fileCount: options.fileCount ?? 1,
      bytesRead: input.bytesRead(),
      size: input.size,
      posts: (options.postsBefore ?? 0) + postsThisRun,
      skipped: (options.skippedBefore ?? 0) + skippedTotal(stats) - skippedAtStart,
    });

  const write = async (batch: Batch, embedded: Promise<IndexedPost[]>): Promise<void> => {
    const rows = await embedded;
    const delta = emptyStats();
    delta.read = batch.posts.length + batch.skips.length;
    for (const s of batch.skips) delta.skipped[s.reason] += 1;
    // A stop leaves the batches not yet begun to the rerun...
    signal?.throwIfAborted();
    if (rows.length > 0) {
      // ...but one begun is finished and checkpointed: the engine completes a write it has
      // started whatever the caller does (LanceDB cannot cancel a merge), so giving up on it
      // would leave its rows stored without their checkpoint or rollup delta, and the rerun
      // would count them again as updates.
      const result = await writeRows(rows, deps);
      delta.inserted = result.inserted;
      delta.updated = result.updated;
      delta.unchanged = result.unchanged ?? 0;
      delta.failed = result.failed.length;
      for (const f of result.failed) deps.log(`${absolute}: index rejected ${f.id}: ${f.reason}`);
    }
    addStats(stats, delta);
    postsThisRun += batch.posts.length;
    await deps.checkpoints.save(identity, batch.endRecord, stats);
    report();
  };

  /** The file stopped part-way (a read or a write failed); counts what was written before. */
  const stopped = (err: unknown): IngestFileError =>
    new IngestFileError(
      (err as Error).message,
      { path: absolute, format, stats, postsThisRun, complete: false, resumedFrom },
      err,
    );
  const pending: Promise<void>[] = [];
  let chain: Promise<void> = after.then(
    () => undefined,
    () => undefined,
  );
  let postsRead = 0;
  let skipsRead = 0;
  try {
    for await (const batch of batches(reader(bytes), options.batchSize, resumedFrom, limit)) {
      signal?.throwIfAborted();
      postsRead += batch.posts.length;
      skipsRead += batch.skips.length;
      for (const s of batch.skips) {
        if (logged < MAX_SKIP_LINES_LOGGED)
          deps.log(`${absolute}:${s.line}: skipped (${s.reason})${s.detail === undefined ? "" : `: ${s.detail}`}`);
        else if (logged === MAX_SKIP_LINES_LOGGED)
          deps.log(`${absolute}: more than ${MAX_SKIP_LINES_LOGGED} skipped records; the rest are only counted`);
        logged += 1;
      }
      const embedded = prepareRows(batch.posts, deps, signal);
      embedded.catch(() => undefined); // awaited in order by `write`; don't report it unhandled meanwhile
      chain = chain.then(() => write(batch, embedded));
      chain.catch(() => undefined); // a failed write surfaces at the next await below, not as unhandled
      pending.push(chain);
      report();
      if (pending.length > MAX_BATCHES_AHEAD) await pending.shift();
    }
  } catch (err) {
    // Let a write in progress finish (or fail) before the caller closes the index.
    await chain.catch(() => undefined);
    throw stopped(err);
  }
  const written = chain;
  const result = (async (): Promise<FileResult> => {
    try {
      await written;
    } catch (err) {
      throw stopped(err);
    }
    const complete = postsThisRun < limit;
    if (complete) await deps.checkpoints.clear(identity);
    return { path: absolute, format, stats, postsThisRun, complete, resumedFrom };
  })();
  result.catch(() => undefined); // the caller awaits it; don't report it unhandled meanwhile
  return { posts: postsRead, skipped: skipsRead, result };
}
