/**
 * Re-enrichment of posts already stored: sentiment, lead fields and topic computed again from
 * each post's stored vector and fields, without embedding anything, then written back through
 * the SearchIndex upsert path (so the trend rollups take the old contribution out and the new
 * one in). A new classifier version then costs minutes, not a full re-embed of the corpus.
 *
 * It runs in two passes. The first scans every post's id and vector into a spill file next to
 * the index (4 bytes per dimension per post, removed at the end); the second reads it back in
 * batches, fetches each batch's current fields by id, enriches and upserts the posts whose
 * enrichment changed. The spill, rather than writing while the scan is open, is because the
 * embedded index compacts and prunes versions older than a few minutes as it is written, which
 * would pull files from under a scan that lasts longer than that; and because holding every
 * vector in memory grows with the corpus (2 GB at a million posts). Posts deleted between the
 * passes are skipped; run it while no ingest writes to the same index, or posts re-embedded by
 * that ingest meanwhile are enriched from their old vector (a second run fixes them).
 */
import { open, rm } from "node:fs/promises";
import path from "node:path";
import { sameEnrichment } from "../index/same-post.js";
import type { SearchIndex } from "../index/search-index.js";
import type { IndexedPost } from "../model/post.js";
import type { UpsertObserver } from "../monitors/monitor-percolator.js";
import type { ScannedPost } from "../topics/trend-store.js";
import type { Enricher } from "./enricher.js";

/** Where posts and their vectors are read from (a TrendStore satisfies it). */
export interface VectorScan {
  scanVectors(batchSize: number, signal?: AbortSignal): AsyncIterable<ScannedPost[]>;
}

/** Options of {@link reenrichAll}. */
export interface ReenrichOptions {
  /** Posts enriched and written per batch. */
  batchSize: number;
  /** Directory for the spill file (the data directory). */
  spillDir: string;
  dimensions: number;
  /**
   * Keep each post's stored topic instead of the enricher's: set when no topic model exists,
   * where the enricher answers "" for every post.
   */
  keepTopics?: boolean;
  signal?: AbortSignal;
  /** After each written batch: posts done so far and the total scanned. */
  onProgress?: (done: number, total: number) => void;
  /** Told the rows each upsert wrote (monitor matching, origin "reenrich"). */
  upserted?: UpsertObserver;
}

/** What a run did. */
export interface ReenrichReport {
  /** Posts the scan found. */
  scanned: number;
  /** Posts enriched (scanned minus those gone before their batch). */
  enriched: number;
  /** Posts whose enrichment changed and were written. */
  changed: number;
  /** Writes the index refused. */
  failed: { id: string; reason: string }[];
  /** Posts per lead_type after the run ("" = not a lead), over the enriched posts. */
  leadTypes: Record<string, number>;
  /** Posts per sentiment label after the run. */
  sentiments: Record<string, number>;
}

/** Re-enriches every post of `index`; see the module comment. */
export async function reenrichAll(
  index: SearchIndex,
  scan: VectorScan,
  enricher: Enricher,
  opts: ReenrichOptions,
): Promise<ReenrichReport> {
  const { batchSize, dimensions, signal } = opts;
  const rowBytes = dimensions * 4;
  const spill = path.join(opts.spillDir, `reenrich-${process.pid}.vectors`);
  const report: ReenrichReport = { scanned: 0, enriched: 0, changed: 0, failed: [], leadTypes: {}, sentiments: {} };
  const handle = await open(spill, "w+");
  try {
    const ids: string[] = [];
    for await (const batch of scan.scanVectors(batchSize, signal)) {
      const buf = Buffer.allocUnsafe(batch.length * rowBytes);
      batch.forEach((p, i) => {
        if (p.vector.length !== dimensions)
          throw new Error(`post ${p.id} has a ${p.vector.length}-d vector, the index holds ${dimensions}-d vectors`);
        Buffer.from(p.vector.buffer, p.vector.byteOffset, rowBytes).copy(buf, i * rowBytes);
        ids.push(p.id);
      });
      await handle.write(buf, 0, buf.length, (ids.length - batch.length) * rowBytes);
    }
    report.scanned = ids.length;
    opts.onProgress?.(0, ids.length);
    for (let start = 0; start < ids.length; start += batchSize) {
      signal?.throwIfAborted();
      const batchIds = ids.slice(start, start + batchSize);
      const buf = Buffer.allocUnsafe(batchIds.length * rowBytes);
      await handle.read(buf, 0, buf.length, start * rowBytes);
      const vectorOf = new Map(
        batchIds.map((id, i) => [
          id,
          new Float32Array(buf.buffer.slice(buf.byteOffset + i * rowBytes, buf.byteOffset + (i + 1) * rowBytes)),
        ]),
      );
      const stored = await index.get(batchIds, signal);
      const vectors = stored.map((p) => vectorOf.get(p.id)!);
      const enriched = stored.length > 0 ? await enricher.enrich(stored, vectors) : [];
      const rows: IndexedPost[] = [];
      enriched.forEach((p, i) => {
        const post = opts.keepTopics ? { ...p, topicId: stored[i]!.topicId } : p;
        report.leadTypes[post.leadType] = (report.leadTypes[post.leadType] ?? 0) + 1;
        report.sentiments[post.sentiment] = (report.sentiments[post.sentiment] ?? 0) + 1;
        if (!sameEnrichment(stored[i]!, post)) rows.push({ ...post, vector: vectors[i]! });
      });
      report.enriched += stored.length;
      if (rows.length > 0) {
        const result = await index.upsert(rows, signal);
        report.failed.push(...result.failed);
        report.changed += rows.length - result.failed.length;
        if (opts.upserted !== undefined) {
          const rejected = new Set(result.failed.map((f) => f.id));
          await opts.upserted(
            rows.filter((r) => !rejected.has(r.id)),
            "reenrich",
          );
        }
      }
      opts.onProgress?.(Math.min(start + batchSize, ids.length), ids.length);
    }
  } finally {
    await handle.close();
    await rm(spill, { force: true });
  }
  return report;
}
