/**
 * The sync scheduler: every tick it reads the sources, claims each one that is due and not
 * leased by another instance, and polls it, several sources at once; a failing source is
 * recorded and rescheduled by pollSource, never allowed to stop the others. Index writes of
 * sources polled at once go one at a time, in the order they are ready.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { PollDeps, PollSummary } from "./poll-source.js";
import { pollSource } from "./poll-source.js";

/** How the scheduler runs. */
export interface SchedulerOptions {
  /** Poll each due source once, then return (for cron and tests). */
  once?: boolean;
  /** Longest sleep between looks at the schedule, ms. */
  tickMs?: number;
  /** Sources polled at the same time. */
  maxConcurrentSources?: number;
  onPoll?: (summary: PollSummary) => void;
  /** A source's claim failed or the store could not be read (logged, then retried next tick). */
  onStoreError?: (err: unknown) => void;
}

/** Defaults of {@link SchedulerOptions}. */
export const DEFAULT_TICK_MS = 1_000;
export const DEFAULT_CONCURRENT_SOURCES = 4;

/** A chain that runs tasks one at a time, in call order. */
export function createWriteLock(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** Runs the schedule until `signal` aborts (or, with `once`, until every due source was polled). */
export async function runScheduler(
  deps: Omit<PollDeps, "writeLock">,
  signal: AbortSignal,
  options: SchedulerOptions = {},
): Promise<PollSummary[]> {
  const tickMs = options.tickMs ?? DEFAULT_TICK_MS;
  const limit = options.maxConcurrentSources ?? DEFAULT_CONCURRENT_SOURCES;
  const writeLock = createWriteLock();
  const running = new Map<string, Promise<void>>();
  const done: PollSummary[] = [];
  const polledOnce = new Set<string>();
  const start = (name: string, record: NonNullable<Awaited<ReturnType<PollDeps["store"]["claim"]>>>): void => {
    const task = pollSource(record, { ...deps, writeLock }, signal)
      .then((summary) => {
        done.push(summary);
        options.onPoll?.(summary);
      })
      .catch((err: unknown) => {
        if (!signal.aborted) options.onStoreError?.(err);
      })
      .finally(() => running.delete(name));
    running.set(name, task);
  };
  while (!signal.aborted) {
    let sources: Awaited<ReturnType<PollDeps["store"]["list"]>> = [];
    try {
      sources = await deps.store.list();
    } catch (err) {
      options.onStoreError?.(err);
    }
    const now = Date.now();
    for (const s of sources) {
      if (running.size >= limit || signal.aborted) break;
      if (running.has(s.name) || s.paused || s.nextPollAt > now) continue;
      if (options.once === true && polledOnce.has(s.name)) continue;
      if (s.leaseOwner !== undefined && s.leaseOwner !== deps.owner && s.leaseUntil >= now) continue;
      try {
        const claimed = await deps.store.claim(s.name, deps.owner, deps.leaseMs);
        if (claimed === undefined) continue;
        polledOnce.add(s.name);
        start(s.name, claimed);
      } catch (err) {
        options.onStoreError?.(err);
      }
    }
    if (options.once === true) {
      const waiting = sources.some(
        (s) =>
          !s.paused && !polledOnce.has(s.name) && s.nextPollAt <= now && !running.has(s.name) && running.size >= limit,
      );
      if (running.size === 0 && !waiting) break;
      await Promise.race(running.values());
      continue;
    }
    const nextDue = Math.min(...sources.filter((s) => !s.paused).map((s) => s.nextPollAt), now + tickMs);
    await sleep(Math.max(50, Math.min(tickMs, nextDue - now)), undefined, { signal }).catch(() => undefined);
  }
  // Stopping: let the polls in progress end (their signal is aborted, so at their next step).
  await Promise.all(running.values());
  return done;
}
