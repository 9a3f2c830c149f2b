/**
 * Opens one input file as a stream of decompressed bytes. Compression is chosen by magic bytes
 * (gzip 1f 8b, zstd 28 b5 2f fd), so a renamed file still reads; the raw bytes read are counted
 * for progress and ETA against the file's size on disk.
 */
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import type { ByteSource } from "./read-item.js";
import { zstdDecompress } from "./zstd-stream.js";

/** How the file is compressed. */
export type Compression = "none" | "gzip" | "zstd";

/** An opened input: decompressed bytes plus what progress reporting needs. */
export interface Input {
  path: string;
  size: number;
  mtimeMs: number;
  compression: Compression;
  /** Decompressed bytes; iterate once. */
  bytes: ByteSource;
  /** Raw (on-disk) bytes consumed so far. */
  bytesRead(): number;
}

/** Detects compression from the first bytes of a file. */
export function compressionOf(head: Buffer): Compression {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
  if (head.length >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return "zstd";
  return "none";
}

/** Opens `path` for streaming. Throws (ENOENT, EISDIR...) before any byte is read. */
export async function openInput(path: string): Promise<Input> {
  const info = await stat(path);
  if (!info.isFile()) throw new Error(`${path} is not a regular file`);
  const handle = await open(path, "r");
  const head = Buffer.alloc(4);
  try {
    await handle.read(head, 0, 4, 0);
  } finally {
    await handle.close();
  }
  const compression = compressionOf(head);
  let raw = 0;
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  // Raw bytes are counted as they are pulled, so nothing flows before a consumer asks.
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of file) {
      raw += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  }
  let bytes: ByteSource;
  if (compression === "gzip") {
    const gunzip = createGunzip();
    const source = Readable.from(counted());
    source.on("error", (err) => gunzip.destroy(err));
    bytes = source.pipe(gunzip);
  } else if (compression === "zstd") bytes = zstdDecompress(Readable.from(counted()), path);
  else bytes = counted();
  return { path, size: info.size, mtimeMs: info.mtimeMs, compression, bytes, bytesRead: () => raw };
}

/**
 * Reads up to `limit` bytes from the front of `source` without losing them: returns the head
 * and a source that yields the whole stream again from the first byte. Call `close` instead of
 * iterating when the stream is not wanted after all.
 */
export async function peek(
  source: ByteSource,
  limit: number,
): Promise<{ head: Buffer; bytes: ByteSource; close: () => Promise<void> }> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < limit) {
    const next = await iterator.next();
    if (next.done === true) {
      done = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks).subarray(0, limit);
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* chunks;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) return;
        yield next.value;
      }
    } finally {
      if (!done) await iterator.return?.();
    }
  }
  // For a caller that gives up before iterating `bytes` (e.g. unknown format): ends the source,
  // which closes the file and stops a zstd child.
  const close = async (): Promise<void> => {
    if (!done) await iterator.return?.();
  };
  return { head, bytes: replay(), close };
}
