/**
 * Where live sources live: their kind, settings, schedule, cursor, health and lease. Two
 * adapters (SQLite in the data directory, PostgreSQL when DATABASE_URL is set) pass one contract
 * suite (test/sources/source-store.test.ts). The lease is what keeps several `sync` processes on
 * one database from polling the same source at once: a claim succeeds only when no other owner
 * holds an unexpired lease, every cursor save renews it, and a dead owner's lease simply runs out.
 */
import type { SourceErrorKind } from "../http/http-error.js";
import type { SourceKind, SourceSettings } from "../source.js";

/** Consecutive failed polls after which a source counts as unhealthy. */
export const UNHEALTHY_AFTER_FAILURES = 3;

/** A source's health as `sources list`, metrics and the health service show it. */
export type SourceHealthStatus = "new" | "ok" | "failing" | "unhealthy";

/** A stored source. Times are epoch milliseconds. */
export interface SourceRecord {
  /** The user's name for it, unique: `hn`, `se-startups`. */
  name: string;
  kind: SourceKind;
  settings: SourceSettings;
  /** Seconds between the starts of two polls. */
  intervalSeconds: number;
  /** Saved after the posts it covers were written; undefined before the first batch. */
  cursor: string | undefined;
  paused: boolean;
  createdAt: number;
  /** When the scheduler polls it next. */
  nextPollAt: number;
  consecutiveFailures: number;
  lastError: string | undefined;
  lastErrorKind: SourceErrorKind | undefined;
  lastPollAt: number | undefined;
  lastSuccessAt: number | undefined;
  /** Polls finished and posts written, over the source's life. */
  polls: number;
  postsWritten: number;
  /** The instance polling it now, while its lease runs. */
  leaseOwner: string | undefined;
  leaseUntil: number;
}

/** The health status a record implies. */
export function healthOf(record: Pick<SourceRecord, "consecutiveFailures" | "polls">): SourceHealthStatus {
  if (record.consecutiveFailures >= UNHEALTHY_AFTER_FAILURES) return "unhealthy";
  if (record.consecutiveFailures > 0) return "failing";
  return record.polls === 0 ? "new" : "ok";
}

/** What `sources add` stores. */
export interface NewSource {
  name: string;
  kind: SourceKind;
  settings: SourceSettings;
  intervalSeconds: number;
}

/** How a poll ended, for {@link SourceStore.finishPoll}. */
export type PollOutcome =
  | { ok: true; posts: number }
  | { ok: false; posts: number; kind: SourceErrorKind; message: string };

/** Thrown by add() for a name already in use. */
export class SourceExistsError extends Error {
  override readonly name = "SourceExistsError";
}

/** The store's operations; every adapter passes the same contract suite. */
export interface SourceStore {
  readonly backend: "sqlite" | "postgres";
  /** Throws SourceExistsError when the name is taken. */
  add(source: NewSource): Promise<SourceRecord>;
  list(): Promise<SourceRecord[]>;
  get(name: string): Promise<SourceRecord | undefined>;
  /** False when no such source. */
  remove(name: string): Promise<boolean>;
  /** False when no such source. Resuming makes it due now. */
  setPaused(name: string, paused: boolean): Promise<boolean>;
  /**
   * Claims the source for `owner` for `leaseMs` when it is unpaused, due (`nextPollAt` passed)
   * and its lease is free, expired or already `owner`'s; returns the record as claimed, or
   * undefined when another instance holds it or it is not due.
   */
  claim(name: string, owner: string, leaseMs: number): Promise<SourceRecord | undefined>;
  /**
   * Saves the cursor and renews the lease, only while `owner` still holds it; false when the
   * lease was lost (expired and taken), in which case the poll must stop without writing more.
   */
  saveCursor(name: string, owner: string, cursor: string, leaseMs: number, postsWritten: number): Promise<boolean>;
  /** Extends `owner`'s lease while a long batch is written; false when it was lost. */
  renew(name: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Records the outcome, sets the next poll time and releases `owner`'s lease. */
  finishPoll(name: string, owner: string, outcome: PollOutcome, nextPollAt: number): Promise<void>;
  close(): Promise<void>;
}
