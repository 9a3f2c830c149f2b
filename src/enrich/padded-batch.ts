/**
 * Runs an encoder graph with the two inputs both bundled encoders take: token ids padded to the
 * batch's longest text (`ids`, int64) and a 0/1 mask of the real tokens (`mask`, float), and
 * returns its `embedding` output, one vector per text, packed row after row.
 */
import ort from "onnxruntime-node";

/** Pads `encoded` into one batch, runs `session` on it and returns the packed embeddings. */
export async function runPaddedBatch(
  session: ort.InferenceSession,
  encoded: readonly (readonly number[])[],
  what: string,
): Promise<Float32Array> {
  const width = Math.max(1, ...encoded.map((e) => e.length));
  const ids = new BigInt64Array(encoded.length * width);
  const mask = new Float32Array(encoded.length * width);
  encoded.forEach((tokens, row) => {
    for (let i = 0; i < tokens.length; i += 1) {
      ids[row * width + i] = BigInt(tokens[i]!);
      mask[row * width + i] = 1;
    }
  });
  const result = await session.run({
    ids: new ort.Tensor("int64", ids, [encoded.length, width]),
    mask: new ort.Tensor("float32", mask, [encoded.length, width]),
  });
  const out = result.embedding;
  if (out === undefined || !(out.data instanceof Float32Array)) throw new Error(`${what} returned no embedding`);
  return out.data;
}
