/**
 * Several input files through one pipeline, as `threadsight ingest a.csv b.csv ...` runs them.
 * A file is opened, read and handed to the embedder while the previous file's last batches are
 * still being embedded, enriched and written: one file after the other, the encoder workers sat
 * idle through every file's tail (enrichment, upsert, checkpoint) and the next file's start
 * (opening, content hash, parsing its first batch), a fraction of a second per file.
 * Writes stay in input order across files (a file's first write waits for the previous file's
 * last), so ids met in two files, rollups and checkpoints end as they did one file at a time.
 * At most {@link MAX_FILES_IN_FLIGHT} files are in flight: the one being read and those whose
 * batches wait to be written.
 */
import type { FileResult, IngestDeps, IngestFileOptions, ReadFile } from "./pipeline.js";
import { beginIngestFile } from "./pipeline.js";

/**
 * Files read but not yet written, plus the one being read. Two left the workers idle while a
 * file's first write built the indexes (~0.5 s on a fresh index, longer than embedding the next
 * small file); each file in flight holds at most MAX_BATCHES_AHEAD + 1 batches.
 */
export const MAX_FILES_IN_FLIGHT = 3;

/** Options for {@link ingestFiles}: those of one file, with the limits over the run. */
export interface IngestFilesOptions
  extends Omit<IngestFileOptions, "limit" | "fileIndex" | "fileCount" | "postsBefore" | "skippedBefore"> {
  /** Stop after this many posts over all files (each file's checkpoint keeps its place). */
  limit?: number;
  /** Stop each file after this many posts (the ingest benchmark's slice of each corpus). */
  fileLimit?: number;
}

/** What became of one file: its result, or why it stopped (an IngestFileError once anything was read). */
export type FileOutcome = { file: string; result: FileResult } | { file: string; error: unknown };

/**
 * Ingests `files` in order, calling `onFile` once per file in input order as each one's last
 * write settles. A failed file does not stop the others, unless `options.signal` was aborted:
 * then the run stops and the error of the first file it cut short is thrown (after `onFile`
 * has seen it). Files after the limit is reached are not opened.
 */
export async function ingestFiles(
  files: readonly string[],
  options: IngestFilesOptions,
  deps: IngestDeps,
  onFile: (outcome: FileOutcome) => void,
): Promise<void> {
  const { limit = Infinity, fileLimit = Infinity, ...fileOptions } = options;
  const signal = options.signal;
  let posts = 0;
  let skipped = 0;
  let previous: Promise<unknown> = Promise.resolve();
  const inFlight: Promise<unknown>[] = [];
  let reported: Promise<void> = Promise.resolve();
  let stop: { error: unknown } | undefined;
  const report = (outcome: FileOutcome): void => {
    if ("error" in outcome && signal?.aborted && stop === undefined) stop = { error: outcome.error };
    onFile(outcome);
  };
  for (const [i, file] of files.entries()) {
    const remaining = limit - posts;
    if (remaining <= 0) break;
    if (signal?.aborted) {
      // Stopped between files: what was begun still settles and is reported first.
      await reported;
      throw stop?.error ?? signal.reason;
    }
    // Bounds memory to a few files' batches, whatever the number of (small) files.
    while (inFlight.length >= MAX_FILES_IN_FLIGHT) await inFlight.shift();
    let begun: ReadFile;
    try {
      begun = await beginIngestFile(
        file,
        {
          ...fileOptions,
          limit: Math.min(remaining, fileLimit),
          fileIndex: i + 1,
          fileCount: files.length,
          postsBefore: posts,
          skippedBefore: skipped,
        },
        deps,
        previous,
      );
    } catch (error) {
      reported = reported.then(() => report({ file, error }));
      reported.catch(() => undefined); // awaited below; a throwing onFile must not go unhandled meanwhile
      continue;
    }
    posts += begun.posts;
    skipped += begun.skipped;
    previous = begun.result;
    const settled = begun.result.then(
      (result) => ({ file, result }),
      (error: unknown) => ({ file, error }),
    );
    inFlight.push(settled);
    reported = reported.then(async () => report(await settled));
    reported.catch(() => undefined);
  }
  await reported;
  if (stop !== undefined) throw stop.error;
}
