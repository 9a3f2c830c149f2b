/**
 * The port every live source implements. A connector is handed a source's stored settings and
 * cursor and yields batches of `Post` (the same type and ids the dump readers build, so a post
 * first loaded from a dump and later seen live is one post, updated), each with the cursor that
 * is safe to save once that batch is written. The scheduler writes a batch, then saves its
 * cursor, so a process killed between the two re-reads at most that batch (upserts are idempotent
 * by id) and never skips one.
 */
import type { Post } from "../model/post.js";
import type { PoliteHttpClient } from "./http/polite-client.js";

/** Kinds of live source, one connector folder each under src/sources/. */
export const SOURCE_KINDS = ["hackernews", "stackexchange", "rss", "discourse", "lemmy", "reddit"] as const;
/** One of {@link SOURCE_KINDS}. */
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Whether `value` names a known kind. */
export function isSourceKind(value: string): value is SourceKind {
  return (SOURCE_KINDS as readonly string[]).includes(value);
}

/** A source's settings as stored: a JSON object each connector validates for itself. */
export type SourceSettings = Readonly<Record<string, unknown>>;

/** One batch of a poll: posts to write, then the cursor that covers them. */
export interface SourceBatch {
  posts: Post[];
  /** Opaque to everything but the connector; saved only after `posts` are written. */
  cursor: string;
  /** Items looked at to build the batch, posts or not (deleted items, comments, repeats). */
  seen: number;
}

/** What a poll is given. */
export interface PollContext {
  settings: SourceSettings;
  /** The cursor saved after the last written batch; undefined on a source's first poll. */
  cursor: string | undefined;
  http: PoliteHttpClient;
  /** Hard cap on items looked at in this poll; the rest wait for the next poll. */
  maxItems: number;
  signal: AbortSignal;
  /** One progress or warning line, no trailing newline. */
  log: (line: string) => void;
  /** The clock, epoch ms; injectable so tests can pin "now". */
  now: () => number;
}

/** A connector for one kind of source. */
export interface Connector {
  readonly kind: SourceKind;
  /**
   * Checks settings given to `sources add` and returns them normalised (defaults filled in).
   * Throws an AppError (INVALID_ARGUMENT) naming the field and the rule.
   */
  validate(settings: unknown): SourceSettings;
  /** A short human label for `sources list` (the site, forum or feed polled). */
  describe(settings: SourceSettings): string;
  /** Polls once, yielding batches in order; stops at `maxItems` or when caught up. */
  poll(context: PollContext): AsyncIterable<SourceBatch>;
}
