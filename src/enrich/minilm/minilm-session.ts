/**
 * Runs all-MiniLM-L6-v2 with ONNX Runtime: tokenizer.json's WordPiece, then the graph of
 * bert-graph.ts on a batch padded to its longest text.
 */
import ort from "onnxruntime-node";
import { runPaddedBatch } from "../padded-batch.js";
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
    return runPaddedBatch(
      this.session,
      texts.map((t) => this.tokenize(t)),
      "all-MiniLM-L6-v2",
    );
  }

  /** Frees the native session. */
  async close(): Promise<void> {
    await this.session.release();
  }
}
