/**
 * One poll of one claimed source: run its connector, write its batches through the ingest
 * pipeline (prepareRows and writeRows: embed, enrich, upsert with its rollups and topic
 * assignment), then save the written batches' cursor with a lease renewal. The order is the
 * exactly-once rule: a cursor is never saved before the posts it covers are written, so a kill at
 * any point re-reads at most the batches fetched since the last saved cursor (idempotent upserts
 * by id) and skips none.
 */
import { setMaxListeners } from "node:events";
import type { PostWriteDeps } from "../../ingest/pipeline.js";
import { EMBED_PART, prepareRows, writeRows } from "../../ingest/pipeline.js";
import type { SourceErrorKind } from "../http/http-error.js";
import { errorKind, SourceRequestError } from "../http/http-error.js";
import type { Politeness } from "../http/polite-client.js";
import { createPoliteClient } from "../http/polite-client.js";
import type { Connector } from "../source.js";
import type { SourceRecord, SourceStore } from "../store/source-store.js";
import { UNHEALTHY_AFTER_FAILURES } from "../store/source-store.js";
import { runBatchPipeline, SYNC_LIMITS } from "./batch-pipeline.js";
import type { SyncMetrics } from "./sync-metrics.js";

/** What a poll needs beyond the source. */
export interface PollDeps {
  store: SourceStore;
  connectors: Readonly<Record<string, Connector>>;
  write: PostWriteDeps;
  /** This instance's lease owner id. */
  owner: string;
  leaseMs: number;
  politeness: Partial<Politeness>;
  maxItemsPerPoll: number;
  metrics?: SyncMetrics | undefined;
  log: (line: string) => void;
  /** Serialises index writes across sources polled at once; a poll's write waits its turn. */
  writeLock: <T>(task: () => Promise<T>) => Promise<T>;
  /** Epoch ms; tests pin it. */
  now?: () => number;
}

/** The summary of one poll, printed by `sync` and returned to tests. */
export interface PollSummary {
  source: string;
  kind: string;
  batches: number;
  seen: number;
  inserted: number;
  updated: number;
  unchanged: number;
  failed: number;
  requests: number;
  ms: number;
  error?: { kind: SourceErrorKind; message: string; retryAt?: number | undefined };
}

/** Longest wait between polls of a failing source. */
export const MAX_FAILURE_DELAY_MS = 3_600_000;

/** When a source polls next: its interval after success, a growing delay after failures. */
export function nextPollAt(record: SourceRecord, now: number, error: PollSummary["error"]): number {
  const interval = record.intervalSeconds * 1000;
  if (error === undefined) return now + interval;
  const failures = record.consecutiveFailures + 1;
  const delay = Math.min(MAX_FAILURE_DELAY_MS, Math.max(interval, 5_000) * 2 ** (failures - 1));
  return Math.max(now + delay, error.retryAt ?? 0);
}

/** Polls `record` (already claimed by `deps.owner`) and records the outcome in the store. */
export async function pollSource(record: SourceRecord, deps: PollDeps, outer: AbortSignal): Promise<PollSummary> {
  const poll = pollSignal(outer);
  try {
    return await pollWith(record, deps, poll.signal);
  } finally {
    poll.release();
  }
}

/**
 * The poll's own signal, aborted with the scheduler's. Each embed call and request in flight
 * listens to it, and the batches fetched ahead put more of them in flight than the 10 listeners
 * past which Node warns of a leak; the count is bounded by the pipeline's limits, so the limit is
 * raised to that bound, and the scheduler's signal keeps one listener per poll.
 */
function pollSignal(outer: AbortSignal): { signal: AbortSignal; release: () => void } {
  const inner = new AbortController();
  const embedCalls = Math.ceil((SYNC_LIMITS.postsAhead + SYNC_LIMITS.writePosts) / EMBED_PART);
  setMaxListeners(embedCalls + 2 * SYNC_LIMITS.batchesAhead + 32, inner.signal);
  const forward = (): void => inner.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener("abort", forward, { once: true });
  return { signal: inner.signal, release: () => outer.removeEventListener("abort", forward) };
}

async function pollWith(record: SourceRecord, deps: PollDeps, signal: AbortSignal): Promise<PollSummary> {
  const now = deps.now ?? Date.now;
  const started = now();
  const connector = deps.connectors[record.kind];
  const summary: PollSummary = {
    source: record.name,
    kind: record.kind,
    batches: 0,
    seen: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    requests: 0,
    ms: 0,
  };
  const http = createPoliteClient(deps.politeness, signal);
  const labels = { source: record.name, kind: record.kind };
  // Renewed a few times per lease while a batch is fetched or written, so a slow batch does not
  // let the lease lapse and hand the source to another instance mid-poll.
  const heartbeat = setInterval(
    () => void deps.store.renew(record.name, deps.owner, deps.leaseMs).catch(() => undefined),
    Math.max(1000, Math.floor(deps.leaseMs / 3)),
  );
  heartbeat.unref();
  try {
    if (connector === undefined) throw new SourceRequestError("settings", `no connector for kind "${record.kind}"`);
    const batches = connector.poll({
      settings: record.settings,
      cursor: record.cursor,
      http,
      maxItems: deps.maxItemsPerPoll,
      signal,
      log: deps.log,
      now,
    });
    // Fetch, embedding and writes overlapped (batch-pipeline.ts); each write's cursor is
    // saved only after its rows are stored, so the exactly-once rule holds.
    await runBatchPipeline(
      batches,
      (posts) => prepareRows(posts, deps.write, signal),
      async ({ batches: covered, rows }) => {
        const result =
          rows.length === 0
            ? { inserted: 0, updated: 0, unchanged: 0, failed: [] }
            : await deps.writeLock(() => writeRows(rows, deps.write));
        const writtenAt = now();
        for (const batch of covered)
          for (const post of batch.posts)
            deps.metrics?.lag.observe(labels, Math.max(0, (writtenAt - post.created) / 1000));
        const unchanged = result.unchanged ?? 0;
        summary.batches += covered.length;
        for (const batch of covered) summary.seen += batch.seen;
        summary.inserted += result.inserted;
        summary.updated += result.updated;
        summary.unchanged += unchanged;
        summary.failed += result.failed.length;
        for (const f of result.failed) deps.log(`${record.name}: index rejected ${f.id}: ${f.reason}`);
        deps.metrics?.posts.inc({ ...labels, outcome: "inserted" }, result.inserted);
        deps.metrics?.posts.inc({ ...labels, outcome: "updated" }, result.updated);
        deps.metrics?.posts.inc({ ...labels, outcome: "unchanged" }, unchanged);
        deps.metrics?.posts.inc({ ...labels, outcome: "failed" }, result.failed.length);
        const held = await deps.store.saveCursor(
          record.name,
          deps.owner,
          covered.at(-1)!.cursor,
          deps.leaseMs,
          result.inserted + result.updated,
        );
        // Another instance took the source over (this one stalled past its lease): stop here, so
        // the two never advance one cursor from different places.
        if (!held) throw new SourceRequestError("internal", "lease lost to another instance; stopping this poll");
      },
    );
  } catch (err) {
    clearInterval(heartbeat);
    if (signal.aborted) throw err;
    const kind = errorKind(err);
    summary.error = {
      kind,
      message: (err as Error).message,
      retryAt: err instanceof SourceRequestError ? err.retryAt : undefined,
    };
  }
  clearInterval(heartbeat);
  summary.requests = http.requests;
  summary.ms = now() - started;
  const written = summary.inserted + summary.updated;
  const outcome =
    summary.error === undefined
      ? ({ ok: true, posts: written } as const)
      : ({ ok: false, posts: written, kind: summary.error.kind, message: summary.error.message } as const);
  await deps.store.finishPoll(record.name, deps.owner, outcome, nextPollAt(record, now(), summary.error));
  deps.metrics?.polls.inc({ ...labels, result: summary.error === undefined ? "ok" : "error" });
  if (summary.error !== undefined) deps.metrics?.errors.inc({ ...labels, error: summary.error.kind });
  deps.metrics?.healthy.set(
    labels,
    summary.error === undefined || record.consecutiveFailures + 1 < UNHEALTHY_AFTER_FAILURES ? 1 : 0,
  );
  return summary;
}

/** The one-line summary `sync` prints after each poll. */
export function formatPollSummary(s: PollSummary): string {
  const counts = `${s.inserted} new, ${s.updated} updated, ${s.unchanged} unchanged${s.failed > 0 ? `, ${s.failed} refused` : ""}; ${s.seen} items seen in ${s.batches} batch(es), ${s.requests} requests, ${(s.ms / 1000).toFixed(1)} s`;
  if (s.error === undefined) return `${s.source} [${s.kind}]: ${counts}`;
  const retry =
    s.error.retryAt === undefined ? "" : `; server asks to wait until ${new Date(s.error.retryAt).toISOString()}`;
  return `${s.source} [${s.kind}]: FAILED (${s.error.kind}: ${s.error.message})${retry}; before failing: ${counts}`;
}
