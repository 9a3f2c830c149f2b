/**
 * The per-(topic, day) rollup cells (src/topics/rollup.ts) as a small LanceDB table next to the
 * posts table. A delta reads the touched cells by key, adds, and writes them back with one
 * mergeInsert on `cell`; the table stays small (topics x days), so the periodic compaction
 * that keeps its fragment count low is cheap.
 */
import type { Connection, Table } from "@lancedb/lancedb";
import { Field, Float64, Schema, Utf8 } from "apache-arrow";
import { checkAborted } from "./abort.js";
import { guardEngine } from "./engine-call.js";
import { sqlNumber, sqlString } from "./lancedb-filter.js";
import { cellKey, mergeCell, TOTAL_DAY, TOTAL_TOPIC } from "../topics/rollup.js";
import type { RollupCell, RollupTable } from "../topics/rollup.js";

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

/** A Float64 column as a typed array (the rollup schema's numbers are all Float64). */
function numbers(v: { toArray(): unknown } | null | undefined): Float64Array {
  const a = v?.toArray();
  return a instanceof Float64Array ? a : Float64Array.from(a as ArrayLike<number>);
}

/** The LanceDB RollupTable; `db` is owned by the caller. */
export class LanceDbRollups implements RollupTable {
  private table: Table | undefined;
  private applied = 0;

  constructor(private readonly db: () => Connection) {}

  async read(fromDay: number, toDay: number, withSubforums: boolean, signal?: AbortSignal): Promise<RollupCell[]> {
    const table = await this.open();
    if (!table) return [];
    const cols = ["topic_id", "day", "count", ...(withSubforums ? ["upvotes", "comments", "sentiment_sum", "subforums"] : [])];
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
        const topic = get("topic_id");
        // Numeric columns as typed arrays: per-row get() on them costs more than the scan.
        const day = numbers(batch.getChild("day"));
        const count = numbers(batch.getChild("count"));
        const [up, com, sent, subs] = withSubforums ? [get("upvotes"), get("comments"), get("sentiment_sum"), get("subforums")] : [];
        for (let i = 0; i < batch.numRows; i++) {
          out.push({
            topicId: String(topic(i)),
            day: day[i]!,
            count: count[i]!,
            upvotes: up ? Number(up(i)) : 0,
            comments: com ? Number(com(i)) : 0,
            sentimentSum: sent ? Number(sent(i)) : 0,
            maxCreated: 0,
            subforums: subs ? (JSON.parse(String(subs(i))) as Record<string, number>) : {},
          });
        }
      }
    }, signal);
    return out;
  }

  async total(signal?: AbortSignal): Promise<RollupCell | undefined> {
    const table = await this.open();
    if (!table) return undefined;
    const rows = await guard(() => table.query().where(`cell = ${sqlString(cellKey(TOTAL_TOPIC, TOTAL_DAY))}`).toArray(), signal);
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
      const rows = await guard(() => table!.query().where(`cell IN (${slice.map(sqlString).join(", ")})`).toArray(), signal);
      for (const r of rows as Record<string, unknown>[]) stored.set(String(r.cell), fromRow(r));
    }
    const rows = [...delta].map(([key, d]) => toRow(mergeCell(stored.get(key), d)));
    await guard(() => table!.mergeInsert("cell").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows), signal);
    if (++this.applied % COMPACT_EVERY === 0) await table!.optimize().catch(() => undefined);
  }

  async replace(cells: ReadonlyMap<string, RollupCell>, signal?: AbortSignal): Promise<void> {
    checkAborted(signal);
    const db = this.db();
    this.table?.close();
    this.table = undefined;
    const rows = [...cells.values()].map(toRow);
    this.table = await guard(() => (rows.length > 0 ? db.createTable(ROLLUP_TABLE, rows, { mode: "overwrite", schema }) : db.createEmptyTable(ROLLUP_TABLE, schema, { mode: "overwrite" })), signal);
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
