/**
 * Sentence embeddings for evaluation and training sets, cached on disk under the OS temp folder
 * so that a second run (or the eval after training) does not pay for the encoder again. The
 * cache key is a hash of the model id and every text, so a changed data file is re-embedded.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LocalEncoderName } from "../../src/config.js";
import { MINILM_DIMENSIONS } from "../../src/enrich/minilm/bert-graph.js";
import { defaultMiniLmDirectory, MINILM_MODEL_ID, verifyMiniLmFiles } from "../../src/enrich/minilm/minilm-files.js";
import { MiniLmSession } from "../../src/enrich/minilm/minilm-session.js";
import { UseSession } from "../../src/enrich/use-onnx/use-session.js";

/** Model id of the vectors this cache produces by default; the ingest pipeline's bundled encoder is the same model. */
export const CACHE_MODEL = "use-lite-512";
const DIMENSIONS = 512;

/** Model id and dimensions of each bundled encoder's vectors. */
export const ENCODER_MODELS: Record<LocalEncoderName, { model: string; dimensions: number; label: string }> = {
  "use-lite": { model: CACHE_MODEL, dimensions: DIMENSIONS, label: "USE-lite" },
  "all-minilm-l6-v2": { model: MINILM_MODEL_ID, dimensions: MINILM_DIMENSIONS, label: "all-MiniLM-L6-v2" },
};
/** Texts per encoder call; the texts go in sorted by length so a batch pads little. */
const BATCH = 16;

const sessions = new Map<LocalEncoderName, Promise<UseSession | MiniLmSession>>();

function load(encoder: LocalEncoderName): Promise<UseSession | MiniLmSession> {
  let s = sessions.get(encoder);
  if (s === undefined) {
    s =
      encoder === "use-lite"
        ? UseSession.load(1)
        : verifyMiniLmFiles(process.env.EMBEDDINGS_MODEL_DIR ?? defaultMiniLmDirectory()).then((files) =>
            MiniLmSession.load(files, 1),
          );
    sessions.set(encoder, s);
  }
  return s;
}

function cacheDir(): string {
  const dir = process.env.THREADSIGHT_EMBED_CACHE ?? path.join(os.tmpdir(), "threadsight-embed-cache");
  mkdirSync(dir, { recursive: true });
  return dir;
}

function keyOf(model: string, texts: readonly string[]): string {
  const h = createHash("sha256").update(model);
  for (const t of texts) h.update("\u0000").update(t);
  return h.digest("hex").slice(0, 32);
}

/**
 * Embeds `texts` with a bundled encoder (USE-lite by default; L2-normalised; the same ONNX
 * Runtime session the service's workers run), reading and writing the cache. `label` only names
 * the progress lines on stderr.
 */
export async function embedCached(
  label: string,
  texts: readonly string[],
  encoder: LocalEncoderName = "use-lite",
): Promise<Float32Array[]> {
  const { model, dimensions: dims } = ENCODER_MODELS[encoder];
  const file = path.join(cacheDir(), `${keyOf(model, texts)}.f32`);
  if (existsSync(file)) {
    const buf = readFileSync(file);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    if (all.length === texts.length * dims) {
      return texts.map((_, i) => all.slice(i * dims, (i + 1) * dims));
    }
  }
  const session = await load(encoder);
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  const out = new Array<Float32Array>(texts.length);
  const started = Date.now();
  for (let i = 0; i < order.length; i += BATCH) {
    const rows = order.slice(i, i + BATCH);
    const flat = await session.embed(rows.map((r) => texts[r]!));
    rows.forEach((r, j) => (out[r] = flat.slice(j * dims, (j + 1) * dims)));
    if ((i / BATCH) % 200 === 0) {
      const rate = (i + rows.length) / Math.max(1, (Date.now() - started) / 1000);
      process.stderr.write(`embed ${label}: ${i + rows.length}/${texts.length} (${rate.toFixed(0)}/s)\n`);
    }
  }
  const all = new Float32Array(texts.length * dims);
  out.forEach((v, i) => all.set(v, i * dims));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(all.buffer));
  renameSync(tmp, file);
  return out;
}
