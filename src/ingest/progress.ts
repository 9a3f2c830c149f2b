/**
 * Ingest progress on stderr: on a terminal, one redrawn line with a bar, posts/s and an ETA from
 * the bytes read against the file's size on disk (compressed bytes for .zst/.gz, which is what
 * the size measures); otherwise a plain log line every `intervalMs`, suitable for files and CI.
 */

/** A snapshot the pipeline reports after each batch and periodically. */
export interface ProgressSnapshot {
  file: string;
  /** 1-based index of the file and the number of files. */
  fileIndex: number;
  fileCount: number;
  bytesRead: number;
  size: number;
  /** Posts written to the index in this run (all files so far). */
  posts: number;
  skipped: number;
}

/** Where progress goes. */
export interface ProgressSink {
  update(snapshot: ProgressSnapshot): void;
  /** Ends the display (clears the redrawn line). */
  done(): void;
}

/** Options for {@link createProgress}. */
export interface ProgressOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Log-line interval when not a TTY; default 10 s. */
  intervalMs?: number;
  now?: () => number;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "--";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** A TTY bar or periodic log lines, chosen by `stream.isTTY`. */
export function createProgress(options: ProgressOptions): ProgressSink {
  const now = options.now ?? Date.now;
  const tty = options.stream.isTTY === true;
  const interval = tty ? 200 : (options.intervalMs ?? 10_000);
  const started = now();
  let fileStarted = started;
  let currentFile = "";
  let last = -Infinity;
  let drawn = false;
  let postsAtFileStart = 0;
  return {
    update(s) {
      const t = now();
      if (s.file !== currentFile) {
        currentFile = s.file;
        fileStarted = t;
        postsAtFileStart = s.posts;
      }
      if (t - last < interval) return;
      last = t;
      const elapsed = Math.max((t - started) / 1000, 1e-3);
      const fraction = s.size > 0 ? Math.min(s.bytesRead / s.size, 1) : 0;
      const fileElapsed = Math.max((t - fileStarted) / 1000, 1e-3);
      // Until this file's first batch is written the reader is only ahead of the embedder: no ETA.
      const eta = fraction > 0 && s.posts > postsAtFileStart ? (fileElapsed * (1 - fraction)) / fraction : Infinity;
      const rate = (s.posts / elapsed).toFixed(1);
      const name = s.file.length > 40 ? `…${s.file.slice(-39)}` : s.file;
      const stats = `${s.posts.toLocaleString("en-US")} posts, ${rate}/s, ${s.skipped} skipped, file ETA ${duration(eta)}`;
      if (tty) {
        const width = 24;
        const filled = Math.round(fraction * width);
        const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}%`;
        const line = `[${s.fileIndex}/${s.fileCount}] ${name} ${bar} ${stats}`;
        options.stream.write(`\r\x1b[2K${line.slice(0, (options.stream.columns ?? 200) - 1)}`);
        drawn = true;
      } else {
        options.stream.write(
          `ingest: [${s.fileIndex}/${s.fileCount}] ${s.file} ${(fraction * 100).toFixed(1)}% read, ${stats}\n`,
        );
      }
    },
    done() {
      if (tty && drawn) options.stream.write("\r\x1b[2K");
      drawn = false;
    },
  };
}
