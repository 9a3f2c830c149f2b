/**
 * The per-(topic, day) rollup cells (src/topics/rollup.ts) as a small Weaviate collection beside
 * the posts collection (`<Posts>TopicDays`), one object per cell with a uuid derived from the cell
 * key, so a write replaces the cell. A window is read with filtered fetches split by day range
 * so none exceeds QUERY_MAXIMUM_RESULTS; that reads O(topics x days) small objects, never posts.
 */

import type { Collection, WeaviateClient } from "weaviate-client";
import { configure, Filters, generateUuid5 } from "weaviate-client";
import type { RollupCell, RollupTable } from "../../topics/rollup.js";
import { cellKey, DAY_MS, mergeCell, TOTAL_DAY, TOTAL_TOPIC, trendInputsFromCells } from "../../topics/rollup.js";
import type { TimeWindow, TrendInputs } from "../../topics/trend-store.js";
import { baselineRange } from "../../topics/trend-store.js";
import { checkAborted, raceAbort } from "../abort.js";
import { guardEngine } from "../engine-call.js";

/** Weaviate's default QUERY_MAXIMUM_RESULTS: the most one fetch returns. */
const MAX_FETCH = 10_000;
/** Days per fetch to start with; a fetch that comes back full is split in two. */
const DAYS_PER_FETCH = 30;
/** Cells per write or lookup request. */
const CHUNK = 1_000;
/** Namespace of cell uuids (any fixed uuid; distinct from posts' namespace). */
const NAMESPACE = "5b8e2f0c-3c1d-4f6a-9a57-0d6f1e2b7c41";

type Cells = Collection<undefined, string, undefined>;
/** Cells of days [from, to], being read or read. */
type Span = { from: number; to: number; cells: Promise<RollupCell[]> };
type Props = Record<string, unknown>;

/**
 * Runs a groupBy; the client reports a filter that matches no objects as a deserialization
 * error ("No grouped results"), which here means "no groups".
 */
export async function groups<T>(run: () => Promise<T[]>): Promise<T[]> {
  try {
    return await run();
  } catch (err) {
    // The client does not export its WeaviateDeserializationError class; its message is stable.
    if (err instanceof Error && /no grouped results in aggregate response/i.test(err.message)) return [];
    throw err;
  }
}

/** Collection name of the rollups of posts collection `posts`. */
export function rollupCollectionName(posts: string): string {
  return `${posts}TopicDays`;
}

function cellUuid(topicId: string, day: number): string {
  return generateUuid5(cellKey(topicId, day), NAMESPACE);
}

function fromProps(p: Props): RollupCell {
  return {
    topicId: String(p.topicId ?? ""),
    day: Number(p.day ?? 0),
    count: Number(p.count ?? 0),
    upvotes: Number(p.upvotes ?? 0),
    comments: Number(p.comments ?? 0),
    sentimentSum: Number(p.sentimentSum ?? 0),
    maxCreated: Number(p.maxCreated ?? 0),
    subforums: p.subforums === undefined ? {} : (JSON.parse(String(p.subforums)) as Record<string, number>),
  };
}

function toProps(c: RollupCell): Record<string, string | number> {
  return {
    topicId: c.topicId,
    day: c.day,
    count: c.count,
    upvotes: c.upvotes,
    comments: c.comments,
    sentimentSum: c.sentimentSum,
    maxCreated: c.maxCreated,
    subforums: JSON.stringify(c.subforums),
  };
}

/** The Weaviate RollupTable; the client is owned by the caller. */
export class WeaviateRollups implements RollupTable {
  private collection: Cells | undefined;
  /** Cells read as of one TOTAL marker (see trendInputs): with every sum, and counts only. */
  private snapshot: { marker: string; full?: Span; counts?: Span } | undefined;

  constructor(
    private readonly client: () => WeaviateClient,
    private readonly name: string,
    private readonly consistency: "ONE" | "QUORUM" | "ALL",
    private readonly replicationFactor = 1,
  ) {}

  async read(fromDay: number, toDay: number, withSubforums: boolean, signal?: AbortSignal): Promise<RollupCell[]> {
    const cells = await this.open(false, signal);
    if (!cells) return [];
    const returnProperties = [
      "topicId",
      "day",
      "count",
      ...(withSubforums ? ["upvotes", "comments", "sentimentSum", "subforums"] : []),
    ];
    const fetchRange = async (from: number, to: number): Promise<RollupCell[]> => {
      const res = await cells.query.fetchObjects({
        filters: Filters.and(
          cells.filter.byProperty("day").greaterOrEqual(from),
          cells.filter.byProperty("day").lessOrEqual(to),
          cells.filter.byProperty("count").greaterThan(0),
        ),
        limit: MAX_FETCH,
        returnProperties,
      });
      if (res.objects.length < MAX_FETCH || to <= from) return res.objects.map((o) => fromProps(o.properties as Props));
      const mid = from + Math.floor((to - from) / DAY_MS / 2) * DAY_MS;
      const [a, b] = await Promise.all([fetchRange(from, mid), fetchRange(mid + DAY_MS, to)]);
      return [...a, ...b];
    };
    const ranges: [number, number][] = [];
    for (let d = Math.max(fromDay, 0); d <= toDay; d += DAYS_PER_FETCH * DAY_MS)
      ranges.push([d, Math.min(toDay, d + DAYS_PER_FETCH * DAY_MS - DAY_MS)]);
    const parts = await guard(() => raceAbort(Promise.all(ranges.map(([a, b]) => fetchRange(a, b))), signal), signal);
    return parts.flat();
  }

  /**
   * TrendStore.trendInputs (day-aligned window) folded in memory from a snapshot of the cells
   * of its range: a one-year window with eight baseline years spans topics x 9 x 365 cells,
   * seconds of fetches, so the snapshot is kept and read again only when the TOTAL cell was
   * rewritten (every delta and every rebuild rewrites it, last, after the cells it covers) or a
   * wider range is asked. Between writes a call costs one read of the TOTAL cell. Baselines
   * need only counts: the whole range is read with counts alone and the window with every sum
   * (subforums are most of a cell's bytes, so a first long-range call reads about half as
   * much).
   */
  async trendInputs(window: TimeWindow, buckets: number, signal?: AbortSignal): Promise<TrendInputs> {
    const cells = await this.open(false, signal);
    if (!cells) return { stats: [], baselines: new Map() };
    const { range } = baselineRange(window, buckets);
    const from = Math.max(window.from, 0);
    const lo = Math.max(buckets > 0 ? range.from : window.from, 0);
    const marker = await this.marker(cells, signal);
    if (this.snapshot?.marker !== marker) this.snapshot = { marker };
    const held = this.snapshot;
    const [full, counts] = await raceAbort(
      Promise.all([
        this.span(held, "full", from, window.to),
        lo < from ? this.span(held, "counts", lo, window.to) : [],
      ]),
      signal,
    );
    const inWindow = full.filter((c) => c.day >= window.from && c.day <= window.to);
    return trendInputsFromCells([...inWindow, ...counts.filter((c) => c.day < window.from)], window, buckets);
  }

  /** The held cells of `kind` covering days [from, to], read (widened to what was held) when they do not. */
  private span(
    held: { full?: Span; counts?: Span },
    kind: "full" | "counts",
    from: number,
    to: number,
  ): Promise<RollupCell[]> {
    const span = held[kind];
    if (span && span.from <= from && span.to >= to) return span.cells;
    const lo = span ? Math.min(span.from, from) : from;
    const hi = span ? Math.max(span.to, to) : to;
    // Shared by concurrent callers, so it runs without one caller's signal.
    const read = this.read(lo, hi, kind === "full");
    held[kind] = { from: lo, to: hi, cells: read };
    read.catch(() => {
      if (held[kind]?.cells === read) delete held[kind];
    });
    return read;
  }

  /** What changes whenever the cells do: the TOTAL cell's last update time and content. */
  private async marker(cells: Cells, signal?: AbortSignal): Promise<string> {
    const o = await guard(
      () => raceAbort(cells.query.fetchObjectById(cellUuid(TOTAL_TOPIC, TOTAL_DAY)), signal),
      signal,
    );
    if (!o) return "none";
    const t = fromProps(o.properties as Props);
    return [o.metadata?.updateTime?.getTime() ?? "", t.count, t.upvotes, t.comments, t.sentimentSum, t.maxCreated].join(
      "|",
    );
  }

  async total(signal?: AbortSignal): Promise<RollupCell | undefined> {
    const cells = await this.open(false, signal);
    if (!cells) return undefined;
    const o = await guard(
      () => raceAbort(cells.query.fetchObjectById(cellUuid(TOTAL_TOPIC, TOTAL_DAY)), signal),
      signal,
    );
    return o ? fromProps(o.properties as Props) : undefined;
  }

  async apply(delta: ReadonlyMap<string, RollupCell>, signal?: AbortSignal): Promise<void> {
    if (delta.size === 0) return;
    const cells = (await this.open(true, signal))!;
    const deltas = totalLast(delta.values());
    for (let i = 0; i < deltas.length; i += CHUNK) {
      checkAborted(signal);
      const slice = deltas.slice(i, i + CHUNK);
      const stored = new Map<string, RollupCell>();
      const res = await guard(
        () =>
          cells.query.fetchObjects({
            filters: cells.filter.byId().containsAny(slice.map((c) => cellUuid(c.topicId, c.day))),
            limit: slice.length,
          }),
        signal,
      );
      for (const o of res.objects) {
        const c = fromProps(o.properties as Props);
        stored.set(cellKey(c.topicId, c.day), c);
      }
      await this.write(
        cells,
        slice.map((d) => mergeCell(stored.get(cellKey(d.topicId, d.day)), d)),
        signal,
      );
    }
  }

  async replace(all: ReadonlyMap<string, RollupCell>, signal?: AbortSignal): Promise<void> {
    checkAborted(signal);
    const client = this.client();
    this.collection = undefined;
    await guard(() => client.collections.delete(this.name), signal);
    const cells = (await this.open(true, signal))!;
    const list = totalLast(all.values());
    for (let i = 0; i < list.length; i += CHUNK) {
      checkAborted(signal);
      await this.write(cells, list.slice(i, i + CHUNK), signal);
    }
  }

  async close(): Promise<void> {
    this.collection = undefined;
  }

  /** Writes cells; a TOTAL cell among them goes in its own request after the others (see totalLast). */
  private async write(cells: Cells, list: RollupCell[], signal?: AbortSignal): Promise<void> {
    const parts = [list.filter((c) => c.topicId !== TOTAL_TOPIC), list.filter((c) => c.topicId === TOTAL_TOPIC)];
    for (const part of parts) {
      if (part.length === 0) continue;
      const res = await guard(
        () => cells.data.insertMany(part.map((c) => ({ id: cellUuid(c.topicId, c.day), properties: toProps(c) }))),
        signal,
      );
      if (res.hasErrors)
        throw new Error(
          `Weaviate rejected rollup cells: ${Object.values(res.errors)
            .map((e) => e.message)
            .slice(0, 3)
            .join("; ")}`,
        );
    }
  }

  /** The collection (created when `create`); undefined while absent. */
  private async open(create: boolean, signal?: AbortSignal): Promise<Cells | undefined> {
    if (this.collection) return this.collection;
    const client = this.client();
    if (!(await guard(() => raceAbort(client.collections.exists(this.name), signal), signal))) {
      if (!create) return undefined;
      const num = (name: string, range: boolean) => ({
        name,
        dataType: "number" as const,
        indexFilterable: range,
        indexRangeFilters: range,
      });
      try {
        await client.collections.create({
          name: this.name,
          description: "Threadsight per-(topic, UTC day) rollups of the posts collection",
          vectorizers: configure.vectors.selfProvided({ vectorIndexConfig: configure.vectorIndex.flat() }),
          // Replicated like the posts collection: a rollup shard on a dead node would stop ingest.
          replication: configure.replication({
            factor: this.replicationFactor,
            asyncEnabled: this.replicationFactor > 1,
          }),
          properties: [
            { name: "topicId", dataType: "text", tokenization: "field", indexFilterable: true, indexSearchable: false },
            num("day", true),
            num("count", true),
            num("upvotes", false),
            num("comments", false),
            num("sentimentSum", false),
            num("maxCreated", false),
            { name: "subforums", dataType: "text", indexFilterable: false, indexSearchable: false },
          ],
        });
      } catch (err) {
        // Another writer may have created it in between; anything else is a real failure.
        if (!(await client.collections.exists(this.name).catch(() => false))) throw err;
      }
    }
    this.collection = client.collections.use(this.name).withConsistency(this.consistency) as Cells;
    return this.collection;
  }
}

/**
 * Cells with the TOTAL cell last: readers take a rewritten TOTAL as "the cells changed" and
 * re-read them, so it must not be written before the cells it covers.
 */
function totalLast(cells: Iterable<RollupCell>): RollupCell[] {
  const list = [...cells];
  return [...list.filter((c) => c.topicId !== TOTAL_TOPIC), ...list.filter((c) => c.topicId === TOTAL_TOPIC)];
}

function guard<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return guardEngine("Weaviate", fn, signal);
}
