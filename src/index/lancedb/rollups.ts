/**
 * The per-(topic, day) rollup cells (src/topics/rollup.ts) as a small LanceDB table next to the
 * posts table. A delta reads the touched cells by key, adds, and writes them back with one
 * mergeInsert on `cell`; the table stays small (topics x days), so the periodic compaction
 * that keeps its fragment count low is cheap.
 */
import type { Connection, Table } from "@lancedb/lancedb";
import { Field, Float64, Schema, Utf8 } from "apache-arrow";
import type { RollupCell, RollupTable } from "../../topics/rollup.js";
import { cellKey, mergeCell, StatsAccumulator, TOTAL_DAY, TOTAL_TOPIC } from "../../topics/rollup.js";
import type { TimeWindow, TrendInputs } from "../../topics/trend-store.js";
import { baselineRange, bucketCount } from "../../topics/trend-store.js";
import { checkAborted, raceAbort } from "../abort.js";
import { guardEngine } from "../engine-call.js";
import { numberColumn, repeatedStrings } from "./arrow-columns.js";
import { sqlNumber, sqlString } from "./filter.js";

export const ROLLUP_TABLE = "topic_days";
/** Deltas applied between compactions of the rollup table. */
const COMPACT_EVERY = 50;
/** Keys per `cell IN (...)` lookup. */
const KEYS_PER_LOOKUP = 1_000;

const schema = new Schema([
  new Field("cell", new Utf8(), false),
  new Field("topic_id", new Utf8(), false),
  new Field("day", new Float64(), false),
  new Field("count", new Float64(), false),
  new Field("upvotes", new Float64(), false),
  new Field("comments", new Float64(), false),
  new Field("sentiment_sum", new Float64(), false),
  new Field("max_created", new Float64(), false),
  new Field("subforums", new Utf8(), false),
]);

function toRow(c: RollupCell): Record<string, unknown> {
  return {
    cell: cellKey(c.topicId, c.day),
    topic_id: c.topicId,
    day: c.day,
    count: c.count,
    upvotes: c.upvotes,
    comments: c.comments,
    sentiment_sum: c.sentimentSum,
    max_created: c.maxCreated,
    subforums: JSON.stringify(c.subforums),
  };
}

function fromRow(r: Record<string, unknown>): RollupCell {
  return {
    topicId: String(r.topic_id),
    day: Number(r.day),
    count: Number(r.count),
    upvotes: Number(r.upvotes ?? 0),
    comments: Number(r.comments ?? 0),
    sentimentSum: Number(r.sentiment_sum ?? 0),
    maxCreated: Number(r.max_created ?? 0),
    subforums: r.subforums === undefined ? {} : (JSON.parse(String(r.subforums)) as Record<string, number>),
  };
}

/** The topic cells of the table as parallel columns (subforums still as JSON text). */
interface CellColumns {
  topic: string[];
  day: number[];
  count: number[];
  upvotes: number[];
  comments: number[];
  sentimentSum: number[];
  subforums: string[];
  /** `subforums` parsed, filled as windows first read each cell (the snapshot outlives calls). */
  parsedSubforums: (Readonly<Record<string, number>> | undefined)[];
}

/** The LanceDB RollupTable; `db` is owned by the caller. */
export class LanceDbRollups implements RollupTable {
  private table: Table | undefined;
  private applied = 0;
  /** The cells as of one table version (see trendInputs). */
  private snapshot: { version: number; table: Table; cells: Promise<CellColumns> } | undefined;

  constructor(private readonly db: () => Connection) {}

  async read(fromDay: number, toDay: number, withSubforums: boolean, signal?: AbortSignal): Promise<RollupCell[]> {
    const table = await this.open();
    if (!table) return [];
    const cols = [
      "topic_id",
      "day",
      "count",
      ...(withSubforums ? ["upvotes", "comments", "sentiment_sum", "subforums"] : []),
    ];
    const where = `day >= ${sqlNumber(Math.max(fromDay, 0))} AND day <= ${sqlNumber(toDay)} AND count > 0`;
    // Folded batch by batch from the Arrow columns: a window can touch tens of thousands of
    // cells, and materialising each as a row object costs more than the read itself.
    const out: RollupCell[] = [];
    await guard(async () => {
      for await (const batch of table.query().where(where).select(cols)) {
        checkAborted(signal);
        const get = (name: string) => {
          const v = batch.getChild(name);
          return (i: number): unknown => v?.get(i);
        };
        const topic = repeatedStrings(batch, "topic_id");
        const day = numberColumn(batch, "day");
        const count = numberColumn(batch, "count");
        const [up, com, sent] = withSubforums
          ? ["upvotes", "comments", "sentiment_sum"].map((c) => numberColumn(batch, c))
          : [];
        const subs = withSubforums ? get("subforums") : undefined;
        for (let i = 0; i < batch.numRows; i++) {
          out.push({
            topicId: topic(i),
            day: day[i]!,
            count: count[i]!,
            upvotes: up ? up[i]! : 0,
            comments: com ? com[i]! : 0,
            sentimentSum: sent ? sent[i]! : 0,
            maxCreated: 0,
            subforums: subs ? (JSON.parse(String(subs(i))) as Record<string, number>) : {},
          });
        }
      }
    }, signal);
    return out;
  }

  /**
   * TrendStore.trendInputs (day-aligned window), folded in memory from a snapshot of the whole
   * cell table. A one-year window with eight baseline years spans topics x 9 x 365 cells, most
   * of the table, and moving that many rows out of LanceDB costs more than folding them; the
   * snapshot is read again only when the table's version moved (any write makes a new version,
   * and the connection sees other processes' writes within its read-consistency interval, as
   * every read here does), so repeated calls between writes read nothing but the version.
   */
  async trendInputs(window: TimeWindow, buckets: number, signal?: AbortSignal): Promise<TrendInputs> {
    const stats = new StatsAccumulator();
    const baselines = new Map<string, number[]>();
    const table = await this.open();
    if (!table) return { stats: [], baselines };
    const cells = await this.snapshotOf(table, signal);
    const { range, bucketMs } = baselineRange(window, buckets);
    const nBuckets = bucketCount(range, bucketMs);
    const from = nBuckets > 0 ? range.from : window.from;
    const { topic, day, count, upvotes, comments, sentimentSum, subforums, parsedSubforums } = cells;
    for (let i = 0; i < day.length; i++) {
      const d = day[i]!;
      if (d < from || d > window.to) continue;
      const id = topic[i]!;
      if (d >= window.from) {
        const subs = (parsedSubforums[i] ??= JSON.parse(subforums[i]!) as Record<string, number>);
        stats.add(id, count[i]!, upvotes[i]!, comments[i]!, sentimentSum[i]!, subs);
        continue;
      }
      let counts = baselines.get(id);
      if (!counts) baselines.set(id, (counts = new Array<number>(nBuckets).fill(0)));
      counts[Math.floor((d - range.from) / bucketMs)]! += count[i]!;
    }
    return { stats: stats.stats(), baselines };
  }

  /** Every topic cell with posts, as columns; re-read when the table's version differs from the held one. */
  private async snapshotOf(table: Table, signal?: AbortSignal): Promise<CellColumns> {
    const version = await guard(() => table.version(), signal);
    const held = this.snapshot;
    if (held && held.version === version && held.table === table) return raceAbort(held.cells, signal);
    // Shared by concurrent callers, so it runs without one caller's signal; each caller still
    // stops waiting on its own abort.
    const cells = this.readColumns(table);
    this.snapshot = { version, table, cells };
    // A failed read must not be reused.
    cells.catch(() => {
      if (this.snapshot?.cells === cells) this.snapshot = undefined;
    });
    return raceAbort(cells, signal);
  }

  private async readColumns(table: Table, signal?: AbortSignal): Promise<CellColumns> {
    const out: CellColumns = {
      topic: [],
      day: [],
      count: [],
      upvotes: [],
      comments: [],
      sentimentSum: [],
      subforums: [],
      parsedSubforums: [],
    };
    await guard(async () => {
      const q = table
        .query()
        .where("day >= 0 AND count > 0")
        .select(["topic_id", "day", "count", "upvotes", "comments", "sentiment_sum", "subforums"]);
      for await (const batch of q) {
        checkAborted(signal);
        const topic = repeatedStrings(batch, "topic_id");
        const [day, count, up, com, sent] = ["day", "count", "upvotes", "comments", "sentiment_sum"].map((c) =>
          numberColumn(batch, c),
        ) as [ArrayLike<number>, ArrayLike<number>, ArrayLike<number>, ArrayLike<number>, ArrayLike<number>];
        const subs = batch.getChild("subforums")!;
        for (let i = 0; i < batch.numRows; i++) {
          out.topic.push(topic(i));
          out.day.push(day[i]!);
          out.count.push(count[i]!);
          out.upvotes.push(up[i]!);
          out.comments.push(com[i]!);
          out.sentimentSum.push(sent[i]!);
          out.subforums.push(String(subs.get(i)));
        }
      }
    }, signal);
    return out;
  }

  async total(signal?: AbortSignal): Promise<RollupCell | undefined> {
    const table = await this.open();
    if (!table) return undefined;
    const rows = await guard(
      () =>
        table
          .query()
          .where(`cell = ${sqlString(cellKey(TOTAL_TOPIC, TOTAL_DAY))}`)
          .toArray(),
      signal,
    );
    return rows[0] ? fromRow(rows[0] as Record<string, unknown>) : undefined;
  }

  async apply(delta: ReadonlyMap<string, RollupCell>, signal?: AbortSignal): Promise<void> {
    if (delta.size === 0) return;
    const table = await this.open(true);
    const keys = [...delta.keys()];
    const stored = new Map<string, RollupCell>();
    for (let i = 0; i < keys.length; i += KEYS_PER_LOOKUP) {
      checkAborted(signal);
      const slice = keys.slice(i, i + KEYS_PER_LOOKUP);
      const rows = await guard(
        () =>
          table!
            .query()
            .where(`cell IN (${slice.map(sqlString).join(", ")})`)
            .toArray(),
        signal,
      );
      for (const r of rows as Record<string, unknown>[]) stored.set(String(r.cell), fromRow(r));
    }
    const rows = [...delta].map(([key, d]) => toRow(mergeCell(stored.get(key), d)));
    await guard(
      () => table!.mergeInsert("cell").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows),
      signal,
    );
    if (++this.applied % COMPACT_EVERY === 0) await table!.optimize().catch(() => undefined);
  }

  async replace(cells: ReadonlyMap<string, RollupCell>, signal?: AbortSignal): Promise<void> {
    checkAborted(signal);
    const db = this.db();
    this.table?.close();
    this.table = undefined;
    const rows = [...cells.values()].map(toRow);
    this.table = await guard(
      () =>
        rows.length > 0
          ? db.createTable(ROLLUP_TABLE, rows, { mode: "overwrite", schema })
          : db.createEmptyTable(ROLLUP_TABLE, schema, { mode: "overwrite" }),
      signal,
    );
  }

  async close(): Promise<void> {
    this.table?.close();
    this.table = undefined;
  }

  /** The table, opened on first need (created when `create`); undefined while absent. */
  private async open(create = false): Promise<Table | undefined> {
    if (this.table) return this.table;
    const db = this.db();
    if (!(await guard(() => db.tableNames())).includes(ROLLUP_TABLE)) {
      if (!create) return undefined;
      this.table = await guard(() => db.createEmptyTable(ROLLUP_TABLE, schema, { existOk: true }));
      return this.table;
    }
    this.table = await guard(() => db.openTable(ROLLUP_TABLE));
    return this.table;
  }
}

function guard<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return guardEngine("LanceDB", fn, signal);
}
