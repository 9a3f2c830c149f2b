/**
 * Sentence embeddings for evaluation and training sets, cached on disk under the OS temp folder
 * so that a second run (or the eval after training) does not pay for the encoder again. The
 * cache key is a hash of the model id and every text, so a changed data file is re-embedded.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UseSession } from "../../src/enrich/use-onnx/use-session.js";

/** Model id of the vectors this cache produces; the ingest pipeline's bundled encoder is the same model. */
export const CACHE_MODEL = "use-lite-512";
const DIMENSIONS = 512;
/** Texts per encoder call; the texts go in sorted by length so a batch pads little. */
const BATCH = 16;

let session: Promise<UseSession> | undefined;

function cacheDir(): string {
  const dir = process.env.THREADSIGHT_EMBED_CACHE ?? path.join(os.tmpdir(), "threadsight-embed-cache");
  mkdirSync(dir, { recursive: true });
  return dir;
}

function keyOf(texts: readonly string[]): string {
  const h = createHash("sha256").update(CACHE_MODEL);
  for (const t of texts) h.update("\u0000").update(t);
  return h.digest("hex").slice(0, 32);
}

/**
 * Embeds `texts` with the Universal Sentence Encoder lite (512-d, L2-normalised; the same
 * ONNX Runtime session the service's workers run), reading and writing the cache. `label` only names the progress lines on stderr.
 */
export async function embedCached(label: string, texts: readonly string[]): Promise<Float32Array[]> {
  const file = path.join(cacheDir(), `${keyOf(texts)}.f32`);
  if (existsSync(file)) {
    const buf = readFileSync(file);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    if (all.length === texts.length * DIMENSIONS) {
      return texts.map((_, i) => all.slice(i * DIMENSIONS, (i + 1) * DIMENSIONS));
    }
  }
  session ??= UseSession.load(1);
  const encoder = await session;
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  const out = new Array<Float32Array>(texts.length);
  const started = Date.now();
  for (let i = 0; i < order.length; i += BATCH) {
    const rows = order.slice(i, i + BATCH);
    const flat = await encoder.embed(rows.map((r) => texts[r]!));
    rows.forEach((r, j) => (out[r] = flat.slice(j * DIMENSIONS, (j + 1) * DIMENSIONS)));
    if ((i / BATCH) % 200 === 0) {
      const rate = (i + rows.length) / Math.max(1, (Date.now() - started) / 1000);
      process.stderr.write(`embed ${label}: ${i + rows.length}/${texts.length} (${rate.toFixed(0)}/s)\n`);
    }
  }
  const all = new Float32Array(texts.length * DIMENSIONS);
  out.forEach((v, i) => all.set(v, i * DIMENSIONS));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(all.buffer));
  renameSync(tmp, file);
  return out;
}
