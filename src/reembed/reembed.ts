/**
 * Moves an index to another encoder in place (`threadsight reembed`).
 *
 * 1. Copy: every post of the live copy, in keyset order ((created, id), the order both engines
 *    scan in), is embedded with the target encoder, enriched as an ingest with that encoder
 *    enriches it (its topic id kept), and written into the shadow copy (index/shadow-copy.ts). A checkpoint after each batch lets
 *    an interrupted run resume after the last post it stored.
 * 2. Catch-up: passes over the live copy compare it with the shadow and write what ingests
 *    added or changed meanwhile (shadow-write.ts), until a pass finds nothing.
 * 3. Switch: with other writers kept out (the embedded index's writer lock), a last catch-up
 *    pass, then the configured index is pointed at the shadow in one atomic step and the old
 *    copy is dropped. Searches read the old copy, with its own vectors, until that moment.
 * 4. The topic model's centroids are recomputed in the new space (topics/retarget.ts).
 */

import { postEmbeddingText } from "../enrich/embed-text.js";
import type { Embedder } from "../enrich/embedder.js";
import type { ScanCursor, SearchIndex } from "../index/search-index.js";
import type { ShadowCopy, VectorModel } from "../index/shadow-copy.js";
import type { Enricher } from "../ingest/enricher.js";
import { loadTopicModel, saveTopicModel } from "../topics/model-file.js";
import { retargetTopicModel, TopicSums } from "../topics/retarget.js";
import type { ReembedCheckpoint, ReembedCheckpointFile } from "./reembed-checkpoint.js";
import { catchUp, writeShadow } from "./shadow-write.js";

/** Catch-up passes taken while other writers may still write, before the one with them kept out. */
const OPEN_CATCH_UP_PASSES = 3;

/** Where a run is, for its progress line. */
export interface ReembedProgress {
  phase: "copy" | "catch-up" | "switch";
  /** Posts done in this phase. */
  done: number;
  /** Posts in the live copy when the phase started (an ingest may add more). */
  total: number;
}

/** Options of {@link reembedIndex}. */
export interface ReembedOptions {
  /** Posts per read/embed/write batch (1..1000, the scan page limit). */
  batch: number;
  /** The checkpoint's scope: which index this is (checkpoint.ts's checkpointScope). */
  scope: string;
  signal?: AbortSignal;
  onProgress?: (p: ReembedProgress) => void;
  /** Told who holds the writer lock while the switch waits for it. */
  onWait?: (holder: string) => void;
  /** The topic model file to move to the new vectors (`<dataDir>/topics/model.json`). */
  topicModelFile?: string;
  /**
   * What an ingest with the target encoder computes for a post from its text and new vector
   * (createIngestEnricher for the target embedder): sentiment and leads depend on the encoder.
   */
  enricher: Enricher;
}

/** What a run did. */
export interface ReembedReport {
  /** Posts the copy pass embedded in this run. */
  copied: number;
  /** Posts the copy pass had stored before this run (a resumed run), 0 for a fresh one. */
  resumedAt: number;
  /** Posts the catch-up passes embedded again or copied (written by ingests meanwhile). */
  caughtUp: number;
  /** Posts in the index after the switch. */
  posts: number;
  /** Topics whose centroids were moved, or undefined when there is no topic model. */
  topics?: number;
}

/** Thrown when the index already holds the target model's vectors. */
export class AlreadyReembeddedError extends Error {
  override readonly name = "AlreadyReembeddedError";
}

/** Runs a reembed of `copies` to `embedder`'s model; see the module comment. */
export async function reembedIndex(
  copies: ShadowCopy,
  embedder: Embedder,
  checkpoints: ReembedCheckpointFile,
  opts: ReembedOptions,
): Promise<ReembedReport> {
  const target: VectorModel = { embeddingModel: embedder.model, dimensions: embedder.dimensions };
  const stored = copies.stored;
  if (stored === undefined) throw new Error("there is no index to re-embed yet; ingest posts first");
  let checkpoint = await checkpoints.load();
  if (stored.embeddingModel === target.embeddingModel && stored.dimensions === target.dimensions) {
    if (checkpoint?.scope === opts.scope && checkpoint.shadow === copies.liveName) {
      // A run stopped between its switch and its clean-up: finish that.
      await copies.dropCopy(checkpoint.live);
      await checkpoints.remove();
      return { copied: 0, resumedAt: checkpoint.done, caughtUp: 0, ...(await afterSwitch(copies, target, opts)) };
    }
    throw new AlreadyReembeddedError(
      `the index already holds vectors of "${target.embeddingModel}" (${target.dimensions} dimensions)`,
    );
  }
  const ours =
    checkpoint !== undefined &&
    checkpoint.scope === opts.scope &&
    checkpoint.live === copies.liveName &&
    checkpoint.shadow === copies.shadowName &&
    checkpoint.model === target.embeddingModel &&
    checkpoint.dimensions === target.dimensions;
  if (!ours || !(await copies.shadowExists())) {
    // A shadow without a checkpoint of ours is from a run for another model, or was never recorded.
    await copies.discardShadow();
    checkpoint = {
      format: 1,
      scope: opts.scope,
      live: copies.liveName,
      shadow: copies.shadowName,
      model: target.embeddingModel,
      dimensions: target.dimensions,
      phase: "copy",
      done: 0,
    };
    await checkpoints.save(checkpoint);
  }
  let cp = checkpoint!;
  const report: ReembedReport = { copied: 0, resumedAt: cp.done, caughtUp: 0, posts: 0 };
  const live = copies.live();
  const shadow = copies.shadow();
  let liveOpen = false;
  let shadowOpen = false;
  try {
    await live.open(stored.embeddingModel, stored.dimensions);
    liveOpen = true;
    await shadow.open(target.embeddingModel, target.dimensions);
    shadowOpen = true;
    const signal = opts.signal;
    if (cp.phase === "copy") cp = await copyPass(live, shadow, embedder, cp, checkpoints, report, opts);
    const pass = async (phase: "catch-up" | "switch"): Promise<number> => {
      const total = await live.count(signal);
      const r = await catchUp(live, shadow, embedder, opts.enricher, {
        batch: opts.batch,
        ...(signal ? { signal } : {}),
        onPage: (done) => opts.onProgress?.({ phase, done, total }),
      });
      report.caughtUp += r.embedded + r.copied;
      return r.embedded + r.copied;
    };
    for (let i = 0; i < OPEN_CATCH_UP_PASSES; i++) if ((await pass("catch-up")) === 0) break;
    const release = await copies.exclusive(opts.onWait ?? (() => {}), signal);
    try {
      await pass("switch");
      if (!copies.writesAfterSwitch) {
        // The embedded shadow builds its indexes as it closes: before readers are pointed at it.
        shadowOpen = false;
        await shadow.close();
      }
      await copies.switchOver();
      // From here on the new copy is the index: an interruption must not undo the switch.
      if (copies.writesAfterSwitch) {
        await pass("switch");
        shadowOpen = false;
        await shadow.close();
      }
      liveOpen = false;
      await live.close();
      await copies.dropCopy(copies.liveName);
    } finally {
      release();
    }
    await checkpoints.remove();
  } finally {
    if (shadowOpen) await shadow.close().catch(() => {});
    if (liveOpen) await live.close().catch(() => {});
  }
  return { ...report, ...(await afterSwitch(copies, target, opts)) };
}

/** The switched index's post count, and its topic model moved to the new vectors. */
async function afterSwitch(
  copies: ShadowCopy,
  target: VectorModel,
  opts: ReembedOptions,
): Promise<{ posts: number; topics?: number }> {
  const current = copies.shadow();
  await current.open(target.embeddingModel, target.dimensions);
  try {
    const posts = await current.count();
    if (opts.topicModelFile === undefined) return { posts };
    const model = await loadTopicModel(opts.topicModelFile);
    if (model === undefined) return { posts };
    const sums = await topicSums(current, target.dimensions, opts.batch, opts.signal);
    const moved = retargetTopicModel(model, sums);
    await saveTopicModel(opts.topicModelFile, moved);
    return { posts, topics: moved.topics.length };
  } finally {
    await current.close();
  }
}

/** The first pass: every post from the checkpoint's cursor on, embedded and stored in the shadow. */
async function copyPass(
  live: SearchIndex,
  shadow: SearchIndex,
  embedder: Embedder,
  start: ReembedCheckpoint,
  checkpoints: ReembedCheckpointFile,
  report: ReembedReport,
  opts: ReembedOptions,
): Promise<ReembedCheckpoint> {
  const signal = opts.signal;
  const total = await live.count(signal);
  let cp = start;
  for (;;) {
    signal?.throwIfAborted();
    const after: ScanCursor | undefined = cp.cursor;
    const page = await live.scan({ limit: opts.batch, ...(after ? { after } : {}) }, signal);
    if (page.length === 0) break;
    const vectors = await embedder.embed(page.map(postEmbeddingText), signal);
    await writeShadow(shadow, page, vectors, opts.enricher, signal);
    const last = page[page.length - 1]!;
    cp = { ...cp, cursor: { created: last.created, id: last.id }, done: cp.done + page.length };
    await checkpoints.save(cp);
    report.copied += page.length;
    opts.onProgress?.({ phase: "copy", done: cp.done, total: Math.max(total, cp.done) });
    if (page.length < opts.batch) break;
  }
  const { cursor: _done, ...rest } = cp;
  const next: ReembedCheckpoint = { ...rest, phase: "catch-up" };
  await checkpoints.save(next);
  return next;
}

/** Sums of the index's vectors per topic id, for the topic model's new centroids. */
async function topicSums(
  index: SearchIndex,
  dimensions: number,
  batch: number,
  signal?: AbortSignal,
): Promise<TopicSums> {
  const sums = new TopicSums(dimensions);
  let after: ScanCursor | undefined;
  for (;;) {
    const page = await index.scan({ limit: batch, ...(after ? { after } : {}) }, signal);
    if (page.length === 0) break;
    const withVectors = await index.getIndexed(
      page.map((p) => p.id),
      signal,
    );
    for (const p of withVectors) sums.add(p.topicId, p.vector);
    const last = page[page.length - 1]!;
    after = { created: last.created, id: last.id };
    if (page.length < batch) break;
  }
  return sums;
}
