/**
 * Reads a safetensors file (an 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and byte range, then the raw little-endian data). Only F32 tensors are
 * returned: the encoder's weights are all float32, and its one int64 tensor (position ids) is
 * a 0..n-1 range the graph does not need.
 */
import { readFile } from "node:fs/promises";

/** One float tensor: its shape and row-major values. */
export interface Tensor {
  shape: number[];
  data: Float32Array;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** Parses safetensors bytes into float tensors by name; throws on a malformed file. */
export function parseSafetensors(bytes: Uint8Array): Map<string, Tensor> {
  if (bytes.length < 8) throw new Error("safetensors: file shorter than its header length");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > bytes.length - 8) throw new Error(`safetensors: header length ${headerLength} exceeds the file`);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<
    string,
    HeaderEntry | Record<string, string>
  >;
  const dataStart = 8 + headerLength;
  const tensors = new Map<string, Tensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const { dtype, shape, data_offsets: offsets } = entry as HeaderEntry;
    if (dtype !== "F32") continue;
    const [begin, end] = offsets;
    const count = shape.reduce((a, b) => a * b, 1);
    if (end - begin !== count * 4 || dataStart + end > bytes.length) {
      throw new Error(`safetensors: tensor ${name} has ${end - begin} bytes for shape ${shape.join("x")}`);
    }
    // Copied out: the file's buffer is not 4-byte aligned at every offset.
    const data = new Float32Array(count);
    new Uint8Array(data.buffer).set(bytes.subarray(dataStart + begin, dataStart + end));
    tensors.set(name, { shape, data });
  }
  return tensors;
}

/** Reads and parses a safetensors file. */
export async function readSafetensors(file: string): Promise<Map<string, Tensor>> {
  return parseSafetensors(await readFile(file));
}
