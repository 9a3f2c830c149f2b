/**
 * The rule by which a TrendStore's rollups answer, since they are its only read path. Rollups
 * cover the index when their TOTAL cell counts exactly the posts it holds. When they do not,
 * either a write is in flight (posts land before their rollup delta, so the rollups trail by
 * one batch) or they lack posts no writer will add: an index written before rollups existed,
 * a copy that bypassed them, a rebuild cut short. The gate tells the two apart by waiting: a
 * shortfall that no write moves for the settle interval is backfilled (rollups recomputed from
 * the posts, once per process however many callers wait); one that moves is read as it stands,
 * because its writer levels the rollups when its batch ends.
 */
import type { RollupCell } from "../topics/rollup.js";
import { raceAbort } from "./abort.js";

/** How long one coverage answer is reused (ListTrends asks several times per call). */
const TTL_MS = 1_000;
/** Default wait before a shortfall that no write moved counts as one to backfill. */
export const DEFAULT_SETTLE_MS = 2_000;

/** The TOTAL cell and the index's post count, read together. */
interface Coverage {
  total: RollupCell | undefined;
  posts: number;
}

/** What a gate reads and how it backfills. */
export interface RollupGateOptions {
  /** The stored TOTAL cell, or undefined when no rollups were written. */
  total(signal?: AbortSignal): Promise<RollupCell | undefined>;
  /** Posts the index holds (0 while its table or collection does not exist). */
  posts(signal?: AbortSignal): Promise<number>;
  /** Recomputes every cell from the posts (TrendStore.rebuildRollups). */
  rebuild(signal?: AbortSignal): Promise<void>;
  /** Wait before backfilling (longer than the engine's read-freshness lag). */
  settleMs?: number;
}

function covers(c: Coverage): boolean {
  return c.total !== undefined && c.total.count === c.posts;
}

function sameCoverage(a: Coverage, b: Coverage): boolean {
  const key = (c: Coverage) =>
    c.total === undefined
      ? `none|${c.posts}`
      : [c.posts, c.total.count, c.total.upvotes, c.total.comments, c.total.sentimentSum, c.total.maxCreated].join("|");
  return key(a) === key(b);
}

/** Gates a store's rollup reads; see the module comment. */
export class RollupGate {
  private cached: { at: number; answer: Promise<Coverage> } | undefined;
  private backfilling: Promise<void> | undefined;

  constructor(private readonly opts: RollupGateOptions) {}

  /** The TOTAL cell when rollups cover every post, else undefined; never backfills. */
  async fresh(signal?: AbortSignal): Promise<RollupCell | undefined> {
    const c = await this.coverage(signal);
    return covers(c) ? c.total : undefined;
  }

  /**
   * The TOTAL cell of rollups ready to answer from, after backfilling them if they stayed short
   * of the posts for the settle interval; undefined when there are no rollups and no posts (or
   * a writer is creating the first ones).
   */
  async ready(signal?: AbortSignal): Promise<RollupCell | undefined> {
    const first = await this.coverage(signal);
    if (covers(first) || (first.total === undefined && first.posts === 0)) return first.total;
    await sleep(this.opts.settleMs ?? DEFAULT_SETTLE_MS, signal);
    this.invalidate();
    const second = await this.coverage(signal);
    if (covers(second) || !sameCoverage(first, second)) return second.total;
    this.backfilling ??= this.opts.rebuild().finally(() => {
      this.backfilling = undefined;
      this.invalidate();
    });
    await raceAbort(this.backfilling, signal);
    return (await this.coverage(signal)).total;
  }

  /** Forgets the cached answer (after this process wrote). */
  invalidate(): void {
    this.cached = undefined;
  }

  /**
   * Both counts, shared for a second. The shared read runs without the caller's signal (one
   * caller's abort must not fail the others); it is two small reads.
   */
  private coverage(signal?: AbortSignal): Promise<Coverage> {
    signal?.throwIfAborted();
    const now = Date.now();
    if (this.cached && now - this.cached.at < TTL_MS) return raceAbort(this.cached.answer, signal);
    const answer = Promise.all([this.opts.total(), this.opts.posts()]).then(([total, posts]) => ({ total, posts }));
    this.cached = { at: now, answer };
    // A failed read must not be reused by the next caller.
    answer.catch(() => {
      if (this.cached?.answer === answer) this.cached = undefined;
    });
    return raceAbort(answer, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return raceAbort(new Promise<void>((resolve) => setTimeout(resolve, ms)), signal);
}
