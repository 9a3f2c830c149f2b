/**
 * zstd decompression through the `zstd` command-line tool: Node 20 has no zstd in zlib, and real
 * Pushshift / Arctic Shift dumps are written with a 2 GB window (`--long=31`), which the CLI
 * decodes with bounded memory. The child's stdout is the decompressed byte stream.
 */
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import type { ByteSource } from "./read-item.js";

/** Thrown when the zstd CLI is missing or the compressed input is damaged. */
export class ZstdError extends Error {
  override readonly name = "ZstdError";
}

/**
 * Decompresses `compressed` through `zstd -dc --long=31`. Errors of the child (not installed,
 * corrupt frame, truncated file) surface as a ZstdError when the stream is consumed.
 */
export async function* zstdDecompress(compressed: Readable, label: string): ByteSource {
  const child = spawn("zstd", ["-dc", "--long=31", "-q"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  let spawnError: ZstdError | undefined;
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => {
    if (stderr.length < 4096) stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      spawnError =
        err.code === "ENOENT"
          ? new ZstdError(
              `cannot read ${label}: the zstd command is not installed (Debian/Ubuntu: apt-get install zstd)`,
            )
          : new ZstdError(`cannot run zstd for ${label}: ${err.message}`, { cause: err });
      resolve(null);
    });
    child.once("close", (code) => resolve(code));
  });
  // EPIPE on stdin when zstd exits early is reported through the exit code instead.
  child.stdin.on("error", () => undefined);
  compressed.on("error", (err) => child.stdout.destroy(err));
  compressed.pipe(child.stdin);
  let finished = false;
  try {
    for await (const chunk of child.stdout) yield chunk as Buffer;
    const code = await exited;
    finished = true;
    if (spawnError !== undefined) throw spawnError;
    if (code !== 0) {
      throw new ZstdError(
        `cannot decompress ${label}: zstd exited with code ${code}: ${stderr.trim() || "no message"}`,
      );
    }
  } catch (err) {
    throw spawnError ?? err;
  } finally {
    if (!finished) {
      compressed.unpipe(child.stdin);
      compressed.destroy();
      child.kill("SIGTERM");
    }
  }
}
