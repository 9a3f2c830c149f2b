/**
 * A server secret that survives restarts: taken from configuration when set (so every instance
 * shares it), otherwise generated once and kept in a file under the data directory, readable by
 * the owner only.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/** Bytes of a generated secret. */
export const GENERATED_SECRET_BYTES = 32;

/**
 * The configured secret (UTF-8 bytes), or the one in `dataDir/fileName`, created when absent.
 * Two processes starting together agree: the file is created exclusively and the loser reads it.
 */
export async function serverSecret(configured: string | undefined, dataDir: string, fileName: string): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, "utf8");
  const file = path.join(dataDir, fileName);
  await mkdir(dataDir, { recursive: true });
  const fresh = randomBytes(GENERATED_SECRET_BYTES).toString("base64url");
  try {
    await writeFile(file, `${fresh}\n`, { flag: "wx", mode: 0o600 });
    return Buffer.from(fresh, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const stored = (await readFile(file, "utf8")).trim();
  if (stored.length < GENERATED_SECRET_BYTES)
    throw new Error(`${file} holds no usable secret; delete it to have a new one generated`);
  return Buffer.from(stored, "utf8");
}
