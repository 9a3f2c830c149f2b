/**
 * Runs all-MiniLM-L6-v2 with ONNX Runtime: tokenizer.json's WordPiece, then the graph of
 * bert-graph.ts on a batch padded to its longest text.
 */
import ort from "onnxruntime-node";
import { buildBertGraph, MINILM_DIMENSIONS, MINILM_MAX_TOKENS } from "./bert-graph.js";
import type { TokenizeFn } from "./minilm-tokenizer.js";
import { loadMiniLmTokenizer } from "./minilm-tokenizer.js";
import { readSafetensors } from "./safetensors.js";

/** One loaded encoder. Calls run one at a time on `threads` ONNX Runtime threads. */
export class MiniLmSession {
  readonly dimensions = MINILM_DIMENSIONS;

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly tokenize: TokenizeFn,
  ) {}

  /** Loads the weights and tokenizer (already verified by the caller) and prepares the session. */
  static async load(files: { weights: string; tokenizer: string }, threads = 1): Promise<MiniLmSession> {
    const [weights, tokenize] = await Promise.all([
      readSafetensors(files.weights),
      loadMiniLmTokenizer(files.tokenizer, MINILM_MAX_TOKENS),
    ]);
    const session = await ort.InferenceSession.create(buildBertGraph(weights), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
    });
    return new MiniLmSession(session, tokenize);
  }

  /** Token ids of one text as the model sees it (exported for the tokenizer tests). */
  tokens(text: string): number[] {
    return this.tokenize(text);
  }

  /** Unit vectors for `texts`, packed row after row. */
  async embed(texts: readonly string[]): Promise<Float32Array> {
    if (texts.length === 0) return new Float32Array(0);
    const encoded = texts.map((t) => this.tokenize(t));
    const width = Math.max(...encoded.map((e) => e.length));
    const ids = new BigInt64Array(texts.length * width);
    const mask = new Float32Array(texts.length * width);
    encoded.forEach((tokens, row) => {
      for (let i = 0; i < tokens.length; i += 1) {
        ids[row * width + i] = BigInt(tokens[i]!);
        mask[row * width + i] = 1;
      }
    });
    const result = await this.session.run({
      ids: new ort.Tensor("int64", ids, [texts.length, width]),
      mask: new ort.Tensor("float32", mask, [texts.length, width]),
    });
    const out = result.embedding;
    if (out === undefined || !(out.data instanceof Float32Array))
      throw new Error("all-MiniLM-L6-v2 returned no embedding");
    return out.data;
  }

  /** Frees the native session. */
  async close(): Promise<void> {
    await this.session.release();
  }
}
