/**
 * Starts all-MiniLM-L6-v2 in the bundled embedder's worker pool, after checking its files once
 * in the calling thread (the workers then read them without hashing again).
 */

import type { UseEmbedder } from "../use-embedder.js";
import { startUseEmbedder } from "../use-embedder.js";
import { MINILM_MAX_TOKENS } from "./bert-graph.js";
import { MINILM_MODEL_ID, verifyMiniLmFiles } from "./minilm-files.js";

/** Characters per text handed to a worker: enough to fill the token budget of any prose. */
const MINILM_MAX_CHARS = MINILM_MAX_TOKENS * 16;

/** MiniLM across `workers` threads, from the verified files in `dir`. */
export async function startMiniLmEmbedder(workers: number, dir: string): Promise<UseEmbedder> {
  const files = await verifyMiniLmFiles(dir);
  return startUseEmbedder(workers, {
    model: MINILM_MODEL_ID,
    encoder: { kind: "minilm", ...files },
    maxChars: MINILM_MAX_CHARS,
  });
}
