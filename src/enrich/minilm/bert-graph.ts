/**
 * all-MiniLM-L6-v2 (a 6-layer BERT, hidden 384, 12 heads) as an ONNX graph built in memory from
 * its safetensors weights, followed by the sentence-transformers pooling the model was trained
 * with: the mean of the token vectors under the attention mask, then L2 normalisation.
 *
 * Per layer (post-norm BERT): x = LN(x + Wo·MHA(x)); x = LN(x + W2·GELU(W1·x)), with the exact
 * (erf) GELU. Linear weights are stored [out, in] as PyTorch keeps them and are transposed here
 * once so each projection is one MatMul.
 */
import { OnnxGraph } from "../use-onnx/onnx-model.js";
import type { Tensor } from "./safetensors.js";

/** Output dimension. */
export const MINILM_DIMENSIONS = 384;
/** Tokens per text the model was trained on (sentence-transformers' max_seq_length). */
export const MINILM_MAX_TOKENS = 256;
const LAYERS = 6;
const HEADS = 12;
const HIDDEN = 384;
const INTERMEDIATE = 1536;
const LAYER_NORM_EPSILON = 1e-12;
/** LayerNormalization and Shape(start, end) need opset 17; Erf is older. */
const OPSET = 17;

/** Builds the model bytes: inputs `ids` (int64 [batch, tokens]) and `mask` (float, 1 for a token); output `embedding` ([batch, 384], unit length). */
export function buildBertGraph(weights: Map<string, Tensor>): Uint8Array {
  const w = (name: string, shape: number[]): Float32Array => {
    const found = weights.get(name);
    if (found === undefined) throw new Error(`all-MiniLM-L6-v2 weights: ${name} is missing`);
    if (found.shape.join("x") !== shape.join("x"))
      throw new Error(
        `all-MiniLM-L6-v2 weights: ${name} has shape ${found.shape.join("x")}, expected ${shape.join("x")}`,
      );
    return found.data;
  };
  const g = new OnnxGraph();
  const ids = g.input("ids", "int64", ["batch", "tokens"]);
  const mask = g.input("mask", "float", ["batch", "tokens"]);
  const param = (name: string, shape: number[]): string => g.floats(w(name, shape), shape);

  // Embeddings: word + position + token type 0 (every text is a single segment), folded into one
  // position table so the graph adds once.
  const word = g.op("Gather", [param("embeddings.word_embeddings.weight", [30522, HIDDEN]), ids]);
  const positions = w("embeddings.position_embeddings.weight", [512, HIDDEN]).slice(0, MINILM_MAX_TOKENS * HIDDEN);
  const typeZero = w("embeddings.token_type_embeddings.weight", [2, HIDDEN]).subarray(0, HIDDEN);
  for (let i = 0; i < positions.length; i += 1) positions[i] = positions[i]! + typeZero[i % HIDDEN]!;
  const tokens = g.op("Shape", [ids], { start: { int: 1 }, end: { int: 2 } });
  const positional = g.op("Slice", [
    g.floats(positions, [MINILM_MAX_TOKENS, HIDDEN]),
    g.int64s([0]),
    tokens,
    g.int64s([0]),
  ]);
  const layerNorm = (x: string, prefix: string): string =>
    g.op("LayerNormalization", [x, param(`${prefix}.weight`, [HIDDEN]), param(`${prefix}.bias`, [HIDDEN])], {
      axis: { int: -1 },
      epsilon: { float: LAYER_NORM_EPSILON },
    });
  let x = layerNorm(g.op("Add", [word, positional]), "embeddings.LayerNorm");

  // Padded keys get a large negative bias before the softmax.
  const one = g.floats(Float32Array.of(1), []);
  const keyBias = g.op("Unsqueeze", [
    g.op("Mul", [g.op("Sub", [one, mask]), g.floats(Float32Array.of(-1e9), [])]),
    g.int64s([1, 2]),
  ]);
  const linear = (input: string, prefix: string, rows: number, cols: number): string =>
    g.op("Add", [
      g.op("MatMul", [input, g.floats(transpose(w(`${prefix}.weight`, [cols, rows]), cols, rows), [rows, cols])]),
      param(`${prefix}.bias`, [cols]),
    ]);
  const depth = HIDDEN / HEADS;
  const scale = g.floats(Float32Array.of(1 / Math.sqrt(depth)), []);
  const sqrtHalf = g.floats(Float32Array.of(Math.SQRT1_2), []);
  const half = g.floats(Float32Array.of(0.5), []);

  for (let layer = 0; layer < LAYERS; layer += 1) {
    const at = `encoder.layer.${layer}`;
    const heads = (name: string, perm: number[]): string =>
      g.op(
        "Transpose",
        [g.op("Reshape", [linear(x, `${at}.attention.self.${name}`, HIDDEN, HIDDEN), g.int64s([0, 0, HEADS, depth])])],
        { perm: { ints: perm } },
      );
    const q = g.op("Mul", [heads("query", [0, 2, 1, 3]), scale]);
    const kT = heads("key", [0, 2, 3, 1]);
    const v = heads("value", [0, 2, 1, 3]);
    const attention = g.op("Softmax", [g.op("Add", [g.op("MatMul", [q, kT]), keyBias])], { axis: { int: -1 } });
    const context = g.op("Reshape", [
      g.op("Transpose", [g.op("MatMul", [attention, v])], { perm: { ints: [0, 2, 1, 3] } }),
      g.int64s([0, 0, HIDDEN]),
    ]);
    x = layerNorm(
      g.op("Add", [linear(context, `${at}.attention.output.dense`, HIDDEN, HIDDEN), x]),
      `${at}.attention.output.LayerNorm`,
    );
    const inner = linear(x, `${at}.intermediate.dense`, HIDDEN, INTERMEDIATE);
    const gelu = g.op("Mul", [
      g.op("Mul", [inner, half]),
      g.op("Add", [one, g.op("Erf", [g.op("Mul", [inner, sqrtHalf])])]),
    ]);
    x = layerNorm(g.op("Add", [linear(gelu, `${at}.output.dense`, INTERMEDIATE, HIDDEN), x]), `${at}.output.LayerNorm`);
  }

  // Mean pooling over the text's own tokens, then unit length (sentence-transformers' clamps).
  const summed = g.op("ReduceSum", [g.op("Mul", [x, g.op("Unsqueeze", [mask, g.int64s([2])])]), g.int64s([1])], {
    keepdims: { int: 0 },
  });
  const count = g.op("Max", [
    g.op("ReduceSum", [mask, g.int64s([1])], { keepdims: { int: 1 } }),
    g.floats(Float32Array.of(1e-9), []),
  ]);
  const pooled = g.op("Div", [summed, count]);
  const norm = g.op("Sqrt", [
    g.op("ReduceSum", [g.op("Mul", [pooled, pooled]), g.int64s([1])], { keepdims: { int: 1 } }),
  ]);
  g.opNamed("embedding", "Div", [pooled, g.op("Max", [norm, g.floats(Float32Array.of(1e-12), [])])]);
  g.output("embedding", "float", ["batch", MINILM_DIMENSIONS]);
  return g.encode(OPSET, "threadsight");
}

/** The transpose of a row-major rows x cols matrix. */
function transpose(m: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r += 1) for (let c = 0; c < cols; c += 1) out[c * rows + r] = m[r * cols + c]!;
  return out;
}
