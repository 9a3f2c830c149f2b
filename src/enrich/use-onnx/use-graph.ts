/**
 * The Universal Sentence Encoder lite as an ONNX graph, rebuilt from the TensorFlow.js graph's
 * weights. The TF graph spends most of its 317 ops turning the sparse (indices, values) input
 * into a padded batch and back; here the batch comes in padded (token ids plus a 0/1 mask) and
 * the same arithmetic runs as ~100 dense ops, which ONNX Runtime executes natively.
 *
 * What the TF graph computes, read from model.json (and reproduced here op for op):
 *   x0 = 2 * embedding(ids) + timing(position)        (AddTimingSignal adds to a copy of the
 *                                                      embeddings, then the stack adds both)
 *   layer 0 (256 -> 512): y = MHA(LN(x0)) + dense(x0); y = y + FFN(LN(y))
 *   layer 1 (512):        y = y + MHA(LN(y));          y = y + FFN(LN(y))
 *   mean over the sentence's tokens -> tanh(dense) -> L2 normalise
 * MHA: 4 heads, queries scaled by the graph's own constants, padded keys biased by -1e9.
 * LN: layer norm with the graph's epsilon. FFN: dense 1536 + ReLU + dense back.
 */
import { OnnxGraph } from "./onnx-model.js";
import type { UseWeights, Weight } from "./use-weights.js";

/** Tokens per sentence the TF graph keeps (ClipToMaxLength drops positions >= 128). */
export const USE_MAX_TOKENS = 128;
/** Output dimension. */
export const USE_DIMENSIONS = 512;
/** Attention heads in both layers (the graph's split_heads reshape). */
const HEADS = 4;
/** The opset whose LayerNormalization, Shape(start, end) and input-axes reductions we use. */
const OPSET = 17;

const ENCODE = "module_apply_default/Encoder_en/KonaTransformer/Encode/";
const STACK = `${ENCODE}TransformerStack/`;
const KERNELS = "module/Encoder_en/KonaTransformer/Encode/";

/** Builds the ONNX model bytes: inputs `ids` (int64 [batch, tokens]) and `mask` (float, 1 for a token, 0 for padding); output `embedding` ([batch, 512], unit length). */
export function buildUseGraph(model: UseWeights): Uint8Array {
  const w = (name: string, shape?: number[]): Weight => {
    const found = model.weights.get(name);
    if (found === undefined) throw new Error(`sentence encoder weights: ${name} is missing`);
    if (shape !== undefined && found.shape.join("x") !== shape.join("x")) {
      throw new Error(
        `sentence encoder weights: ${name} has shape ${found.shape.join("x")}, expected ${shape.join("x")}`,
      );
    }
    return found;
  };
  const scalar = (name: string): number => w(name, []).data[0]!;

  const g = new OnnxGraph();
  const ids = g.input("ids", "int64", ["batch", "tokens"]);
  const mask = g.input("mask", "float", ["batch", "tokens"]);
  const epsilon = scalar(`${STACK}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`);
  const param = (name: string, shape: number[]): string => g.floats(w(name, shape).data, shape);

  // Embeddings plus the sinusoidal timing signal of each position.
  const table = w("module/Embeddings_en", [8002, 256]);
  const embedded = g.op("Gather", [g.floats(table.data, table.shape), ids]);
  const timing = timingTable(w(`${STACK}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128]).data);
  const tokens = g.op("Shape", [ids], { start: { int: 1 }, end: { int: 2 } });
  const signal = g.op("Slice", [g.floats(timing, [USE_MAX_TOKENS, 256]), g.int64s([0]), tokens, g.int64s([0])]);
  const x0 = g.op("Add", [g.op("Add", [embedded, embedded]), signal]);

  // Padded keys get -1e9 before the softmax, as attention_bias_ignore_padding does.
  const one = g.floats(Float32Array.of(1), []);
  const padding = g.op("Sub", [one, mask]);
  const keyBias = g.op("Unsqueeze", [
    g.op("Mul", [
      padding,
      g.floats(
        Float32Array.of(
          scalar(
            `${STACK}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`,
          ),
        ),
        [],
      ),
    ]),
    g.int64s([1, 2]),
  ]);

  const layerNorm = (x: string, prefix: string, size: number): string =>
    g.op(
      "LayerNormalization",
      [
        x,
        param(`${prefix}layer_norm_scale/ConcatPartitions/concat`, [size]),
        param(`${prefix}layer_norm_bias/ConcatPartitions/concat`, [size]),
      ],
      {
        axis: { int: -1 },
        epsilon: { float: epsilon },
      },
    );
  const dense = (x: string, kernel: Float32Array, rows: number, cols: number, bias: string): string =>
    g.op("Add", [g.op("MatMul", [x, g.floats(kernel, [rows, cols])]), bias]);

  const attention = (x: string, layer: number, width: number): string => {
    const at = `${ENCODE}Layer_${layer}/TransformerLayer/`;
    const depth = width / HEADS;
    const h = layerNorm(x, `${at}layer_prepostprocess/layer_norm/`, width);
    const kernel = w(
      `${KERNELS}Layer_${layer}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0`,
      [1, 1, width, 3 * width],
    ).data;
    const bias = w(`${at}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * width]).data;
    const project = (part: number, perm: number[]): string => {
      const out = dense(
        h,
        columns(kernel, width, 3 * width, part * width, width),
        width,
        width,
        g.floats(bias.slice(part * width, (part + 1) * width), [width]),
      );
      return g.op("Transpose", [g.op("Reshape", [out, g.int64s([0, 0, HEADS, depth])])], { perm: { ints: perm } });
    };
    const scale = scalar(`${STACK}Layer_${layer}/TransformerLayer/MultiheadAttention/mul/y`);
    const q = g.op("Mul", [project(0, [0, 2, 1, 3]), g.floats(Float32Array.of(scale), [])]);
    const kT = project(1, [0, 2, 3, 1]);
    const v = project(2, [0, 2, 1, 3]);
    const weights = g.op("Softmax", [g.op("Add", [g.op("MatMul", [q, kT]), keyBias])], { axis: { int: -1 } });
    const heads = g.op("Transpose", [g.op("MatMul", [weights, v])], { perm: { ints: [0, 2, 1, 3] } });
    const combined = g.op("Reshape", [heads, g.int64s([0, 0, width])]);
    const outKernel = w(
      `${KERNELS}Layer_${layer}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0`,
      [1, 1, width, 512],
    ).data;
    return dense(
      combined,
      outKernel,
      width,
      512,
      param(`${at}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [512]),
    );
  };

  const feedForward = (y: string, layer: number): string => {
    const at = `${ENCODE}Layer_${layer}/TransformerLayer/FFN/`;
    const h = layerNorm(y, `${at}layer_prepostprocess/layer_norm/`, 512);
    const inner = g.op("Relu", [
      dense(
        h,
        w(`${STACK}Layer_${layer}/TransformerLayer/FFN/conv1/Tensordot/Reshape_1`, [512, 1536]).data,
        512,
        1536,
        param(`${at}conv1/bias/ConcatPartitions/concat`, [1536]),
      ),
    ]);
    const out = dense(
      inner,
      w(`${STACK}Layer_${layer}/TransformerLayer/FFN/conv2/Tensordot/Reshape_1`, [1536, 512]).data,
      1536,
      512,
      param(`${at}conv2/bias/ConcatPartitions/concat`, [512]),
    );
    return g.op("Add", [out, y]);
  };

  // Layer 0 widens 256 -> 512, so its residual goes through a dense projection.
  const residual0 = dense(
    x0,
    w(`${ENCODE}Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`, [256, 512]).data,
    256,
    512,
    param(`${ENCODE}Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`, [512]),
  );
  let y = g.op("Add", [attention(x0, 0, 256), residual0]);
  y = feedForward(y, 0);
  y = g.op("Add", [attention(y, 1, 512), y]);
  y = feedForward(y, 1);

  // Mean over the sentence's own tokens (at least one, as the graph's Maximum guards).
  const summed = g.op("ReduceSum", [g.op("Mul", [y, g.op("Unsqueeze", [mask, g.int64s([2])])]), g.int64s([1])], {
    keepdims: { int: 0 },
  });
  const count = g.op("Max", [g.op("ReduceSum", [mask, g.int64s([1])], { keepdims: { int: 1 } }), one]);
  const pooled = g.op("Div", [summed, count]);
  const hidden = g.op("Tanh", [
    dense(
      pooled,
      w("module/Encoder_en/hidden_layers/tanh_layer_0/weights", [512, 512]).data,
      512,
      512,
      param("module/Encoder_en/hidden_layers/tanh_layer_0/bias", [512]),
    ),
  ]);
  const squares = g.op("ReduceSum", [g.op("Mul", [hidden, hidden]), g.int64s([1])], { keepdims: { int: 1 } });
  const floor = g.floats(
    Float32Array.of(scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y")),
    [],
  );
  const inverseNorm = g.op("Reciprocal", [g.op("Sqrt", [g.op("Max", [squares, floor])])]);
  g.opNamed("embedding", "Mul", [hidden, inverseNorm]);
  g.output("embedding", "float", ["batch", USE_DIMENSIONS]);
  return g.encode(OPSET, "threadsight");
}

/** sin/cos of position x inverse timescale, as the graph's TimingSignal computes it in float32. */
function timingTable(inverse: Float32Array): Float32Array {
  const half = inverse.length;
  const table = new Float32Array(USE_MAX_TOKENS * half * 2);
  for (let p = 0; p < USE_MAX_TOKENS; p += 1) {
    for (let i = 0; i < half; i += 1) {
      const angle = Math.fround(p * inverse[i]!);
      table[p * half * 2 + i] = Math.sin(angle);
      table[p * half * 2 + half + i] = Math.cos(angle);
    }
  }
  return table;
}

/** Columns [start, start + count) of a row-major rows x cols matrix. */
function columns(matrix: Float32Array, rows: number, cols: number, start: number, count: number): Float32Array {
  const out = new Float32Array(rows * count);
  for (let r = 0; r < rows; r += 1) out.set(matrix.subarray(r * cols + start, r * cols + start + count), r * count);
  return out;
}
