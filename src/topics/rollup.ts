/**
 * Per-(topic, UTC day) rollups: what ListTrends sums, kept small so a window reads
 * O(topics x days) cells instead of every post. A cell holds the count, upvote/comment sums,
 * sentiment sum and per-subforum counts of one topic's posts created on one day. Writers keep
 * cells current by deltas (a re-ingested post first takes its old contribution back, so nothing
 * is counted twice); a topic rebuild recomputes them all, since topic ids change. A TOTAL cell
 * counts every post (with or without a topic) and the newest `created`, so a reader can tell
 * rollups that cover the index from rollups that lag it (src/index/rollup-gate.ts decides
 * what to do then). Pure: storage lives in src/index/{lancedb,weaviate}/rollups.ts.
 */
import type { EnrichedPost } from "../model/post.js";
import type { TimeWindow, TopicWindowStats, TrendInputs } from "./trend-store.js";
import { baselineRange, bucketCount, bySubforumCount, TOP_SUBFORUMS } from "./trend-store.js";

export const DAY_MS = 86_400_000;
/** topicId of the bookkeeping cell; it lives on day -1, which no post's UTC day can be. */
export const TOTAL_TOPIC = "(total)";
export const TOTAL_DAY = -1;

/** One (topic, day) cell. `maxCreated` is only meaningful on the TOTAL cell. */
export interface RollupCell {
  topicId: string;
  /** UTC day start, epoch ms. */
  day: number;
  count: number;
  upvotes: number;
  comments: number;
  sentimentSum: number;
  subforums: Record<string, number>;
  maxCreated: number;
}

/** The fields of a post a rollup reads. */
export type RollupPost = Pick<
  EnrichedPost,
  "id" | "topicId" | "created" | "upvotes" | "comments" | "sentimentScore" | "subforum"
>;

/** Storage key of a cell. */
export function cellKey(topicId: string, day: number): string {
  return `${topicId}|${day}`;
}

export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** True when a window starts and ends on UTC day boundaries, so whole cells cover it exactly. */
export function dayAligned(w: TimeWindow): boolean {
  return w.from % DAY_MS === 0 && (w.to + 1) % DAY_MS === 0;
}

export function emptyCell(topicId: string, day: number): RollupCell {
  return { topicId, day, count: 0, upvotes: 0, comments: 0, sentimentSum: 0, subforums: {}, maxCreated: 0 };
}

function add(cells: Map<string, RollupCell>, topicId: string, day: number, p: RollupPost, sign: 1 | -1): void {
  const key = cellKey(topicId, day);
  let c = cells.get(key);
  if (!c) cells.set(key, (c = emptyCell(topicId, day)));
  c.count += sign;
  c.upvotes += sign * p.upvotes;
  c.comments += sign * p.comments;
  c.sentimentSum += sign * p.sentimentScore;
  if (topicId !== TOTAL_TOPIC) c.subforums[p.subforum] = (c.subforums[p.subforum] ?? 0) + sign;
  if (sign === 1) c.maxCreated = Math.max(c.maxCreated, p.created);
}

/**
 * The change to the cells when `written` replace `previous` (the stored versions of the same
 * ids, absent for new posts). Posts without a topic only move the TOTAL count.
 */
export function rollupDelta(previous: readonly RollupPost[], written: readonly RollupPost[]): Map<string, RollupCell> {
  const cells = new Map<string, RollupCell>();
  for (const p of previous) {
    add(cells, TOTAL_TOPIC, TOTAL_DAY, p, -1);
    if (p.topicId !== "") add(cells, p.topicId, utcDay(p.created), p, -1);
  }
  for (const p of written) {
    add(cells, TOTAL_TOPIC, TOTAL_DAY, p, 1);
    if (p.topicId !== "") add(cells, p.topicId, utcDay(p.created), p, 1);
  }
  return cells;
}

/** `base` plus `delta` (a new cell; subforums that drop to zero are removed). */
export function mergeCell(base: RollupCell | undefined, delta: RollupCell): RollupCell {
  const out = base ? { ...base, subforums: { ...base.subforums } } : emptyCell(delta.topicId, delta.day);
  out.count += delta.count;
  out.upvotes += delta.upvotes;
  out.comments += delta.comments;
  out.sentimentSum += delta.sentimentSum;
  out.maxCreated = Math.max(out.maxCreated, delta.maxCreated);
  for (const [s, n] of Object.entries(delta.subforums)) {
    const v = (out.subforums[s] ?? 0) + n;
    if (v === 0) delete out.subforums[s];
    else out.subforums[s] = v;
  }
  return out;
}

/** Every cell of a full pass over the posts (a rebuild). */
export function rollupAll(posts: Iterable<RollupPost>): Map<string, RollupCell> {
  const cells = new Map<string, RollupCell>();
  for (const p of posts) {
    add(cells, TOTAL_TOPIC, TOTAL_DAY, p, 1);
    if (p.topicId !== "") add(cells, p.topicId, utcDay(p.created), p, 1);
  }
  return cells;
}

/** Sums cells per topic into window stats; the one fold behind every rollup answer. */
export class StatsAccumulator {
  private readonly acc = new Map<
    string,
    { count: number; upvotes: number; comments: number; sentimentSum: number; subforums: Map<string, number> }
  >();

  add(
    topicId: string,
    count: number,
    upvotes: number,
    comments: number,
    sentimentSum: number,
    subforums: Readonly<Record<string, number>>,
  ): void {
    let a = this.acc.get(topicId);
    if (!a) this.acc.set(topicId, (a = { count: 0, upvotes: 0, comments: 0, sentimentSum: 0, subforums: new Map() }));
    a.count += count;
    a.upvotes += upvotes;
    a.comments += comments;
    a.sentimentSum += sentimentSum;
    for (const s in subforums) a.subforums.set(s, (a.subforums.get(s) ?? 0) + subforums[s]!);
  }

  stats(): TopicWindowStats[] {
    return [...this.acc]
      .filter(([, a]) => a.count > 0)
      .map(([topicId, a]) => ({
        topicId,
        count: a.count,
        upvotes: a.upvotes,
        comments: a.comments,
        meanSentiment: a.sentimentSum / a.count,
        topSubforums: [...a.subforums]
          .filter(([, n]) => n !== 0)
          .map(([subforum, count]) => ({ subforum, count }))
          .sort(bySubforumCount)
          .slice(0, TOP_SUBFORUMS),
      }));
  }
}

/** Folds a window's cells into per-topic stats (TOTAL and empty cells ignored). */
export function statsFromCells(cells: Iterable<RollupCell>): TopicWindowStats[] {
  const acc = new StatsAccumulator();
  for (const c of cells) {
    if (c.topicId === TOTAL_TOPIC || c.count <= 0) continue;
    acc.add(c.topicId, c.count, c.upvotes, c.comments, c.sentimentSum, c.subforums);
  }
  return acc.stats();
}

/** Folds cells into per-topic counts per bucket (see TrendStore.countsByTopicAndBucket). */
export function bucketsFromCells(
  cells: Iterable<RollupCell>,
  range: TimeWindow,
  bucketMs: number,
): Map<string, number[]> {
  const buckets = bucketCount(range, bucketMs);
  const out = new Map<string, number[]>();
  for (const c of cells) {
    if (c.topicId === TOTAL_TOPIC || c.count <= 0 || c.day < range.from || c.day > range.to) continue;
    let counts = out.get(c.topicId);
    if (!counts) out.set(c.topicId, (counts = new Array<number>(buckets).fill(0)));
    counts[Math.floor((c.day - range.from) / bucketMs)]! += c.count;
  }
  return out;
}

/**
 * TrendStore.trendInputs from the cells of [window.from - buckets * length, window.to]: the
 * window's cells make the stats, the earlier ones the baseline buckets.
 */
export function trendInputsFromCells(cells: readonly RollupCell[], window: TimeWindow, buckets: number): TrendInputs {
  const { range, bucketMs } = baselineRange(window, buckets);
  return {
    stats: statsFromCells(cells.filter((c) => c.day >= window.from && c.day <= window.to)),
    baselines: buckets > 0 ? bucketsFromCells(cells, range, bucketMs) : new Map(),
  };
}

/**
 * Whether rollups can answer a bucketed range: whole days, and buckets a whole number of days
 * (a cell must fall in one bucket).
 */
export function bucketsAligned(range: TimeWindow, bucketMs: number): boolean {
  return dayAligned(range) && bucketMs % DAY_MS === 0;
}

/** Throws unless `window` is whole UTC days: rollups, the only read path, hold whole days. */
export function assertDayAligned(window: TimeWindow): void {
  if (!dayAligned(window))
    throw new RangeError(`a trend window must start and end on UTC day boundaries, got ${window.from}..${window.to}`);
}

/** Throws unless a bucketed range is whole days cut into whole-day buckets. */
export function assertBucketsAligned(range: TimeWindow, bucketMs: number): void {
  if (!bucketsAligned(range, bucketMs))
    throw new RangeError(
      `a bucketed trend range must be whole UTC days in buckets of whole days, got ${range.from}..${range.to} by ${bucketMs} ms`,
    );
}

/** Rollup storage of one backend. */
export interface RollupTable {
  /** Cells with day in [fromDay, toDay] (TOTAL excluded); `withSubforums` false may leave subforums empty. */
  read(fromDay: number, toDay: number, withSubforums: boolean, signal?: AbortSignal): Promise<RollupCell[]>;
  /** The TOTAL cell, or undefined when rollups were never written. */
  total(signal?: AbortSignal): Promise<RollupCell | undefined>;
  /** Adds deltas to the stored cells. */
  apply(delta: ReadonlyMap<string, RollupCell>, signal?: AbortSignal): Promise<void>;
  /** Replaces every cell. */
  replace(cells: ReadonlyMap<string, RollupCell>, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** Something that keeps rollups current as posts are written (both TrendStores). */
export interface RollupWriter {
  open(): Promise<void>;
  /** Records that `written` replaced `previous` (stored versions of the same ids). */
  recordUpsert(previous: readonly RollupPost[], written: readonly RollupPost[], signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}
