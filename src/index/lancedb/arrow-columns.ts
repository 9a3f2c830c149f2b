/**
 * Fast readers of Arrow columns for the scans that fold many rows (trend rollups, top posts):
 * per-row `Vector.get` decodes a UTF-8 string or boxes a number on every call, which costs more
 * than LanceDB's read itself once a scan returns tens of thousands of rows.
 */
import type { RecordBatch } from "apache-arrow";

/** A numeric column as plain numbers by row (Int64 and Float64 alike). */
export function numberColumn(batch: RecordBatch, name: string): ArrayLike<number> {
  const v = batch.getChild(name);
  if (!v) throw new Error(`Arrow batch has no column ${name}`);
  const a = v.toArray() as ArrayLike<number | bigint>;
  if (a instanceof Float64Array || a instanceof Int32Array || a instanceof Float32Array) return a;
  return Float64Array.from(a as ArrayLike<number | bigint>, (x) => Number(x));
}

/**
 * A string column whose values repeat (topic ids): each distinct value is decoded once and
 * found again by a hash of its bytes, so a row costs a few integer operations.
 */
export function repeatedStrings(batch: RecordBatch, name: string): (row: number) => string {
  const v = batch.getChild(name);
  if (!v) throw new Error(`Arrow batch has no column ${name}`);
  const chunk =
    v.data.length === 1 ? (v.data[0] as { valueOffsets?: ArrayLike<number | bigint>; values?: unknown }) : undefined;
  const offsets = chunk?.valueOffsets;
  const bytes = chunk?.values;
  if (!offsets || !(offsets instanceof Int32Array) || !(bytes instanceof Uint8Array))
    return (row) => String(v.get(row));
  const decoder = new TextDecoder();
  const known = new Map<number, { start: number; end: number; value: string }[]>();
  return (row) => {
    const start = offsets[row]!;
    const end = offsets[row + 1]!;
    let h = 0x811c9dc5 ^ (end - start);
    for (let k = start; k < end; k++) h = Math.imul(h ^ bytes[k]!, 0x01000193);
    const bucket = known.get(h);
    if (bucket) {
      for (const e of bucket) if (sameBytes(bytes, e.start, e.end, start, end)) return e.value;
    }
    const value = decoder.decode(bytes.subarray(start, end));
    if (bucket) bucket.push({ start, end, value });
    else known.set(h, [{ start, end, value }]);
    return value;
  };
}

function sameBytes(b: Uint8Array, s1: number, e1: number, s2: number, e2: number): boolean {
  if (e1 - s1 !== e2 - s2) return false;
  for (let k = 0; k < e1 - s1; k++) if (b[s1 + k] !== b[s2 + k]) return false;
  return true;
}
