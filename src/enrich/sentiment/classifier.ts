/**
 * Post sentiment: label (positive | neutral | negative) and score -1..1 from the committed softmax
 * model over [sentence embedding, VADER features] of the encoder whose vectors it is given (one
 * model per bundled encoder). The ingest pipeline passes the vectors it has already computed, so
 * sentiment never embeds a text twice; an Embedder is only needed by callers that have no vectors.
 */

import type { SentimentLabel } from "../../model/post.js";
import type { Embedder } from "../embedder.js";
import { sentimentFeatures } from "./features.js";
import { classIndex, DEFAULT_SENTIMENT_EMBEDDING, loadSentimentModel, type SentimentModelFile } from "./model-file.js";
import { compiledProba, compileSoftmax } from "./softmax.js";

/** Sentiment of one text. */
export interface SentimentResult {
  label: SentimentLabel;
  /** P(positive) - P(negative), in -1..1. */
  score: number;
  probabilities: Record<SentimentLabel, number>;
  /** P(anger, annoyance, disappointment, disapproval or disgust), 0..1: the tone of a complaint. */
  frustration: number;
}

/** Classifies texts; see {@link createSentimentClassifier}. */
export interface SentimentClassifier {
  /** Embedding model id the classifier expects vectors from. */
  readonly embeddingModel: string;
  /** One result per text. Vectors, when given, must come from {@link embeddingModel}. */
  classify(
    texts: readonly string[],
    vectors?: readonly Float32Array[],
    signal?: AbortSignal,
  ): Promise<SentimentResult[]>;
  /** Synchronous form for one text whose vector is at hand. */
  classifyOne(text: string, vector: Float32Array): SentimentResult;
}

/** Options of {@link createSentimentClassifier}. */
export interface SentimentClassifierOptions {
  /**
   * Used when `classify` is called without vectors; its `model` also picks the committed model
   * when `embeddingModel` is not given.
   */
  embedder?: Embedder;
  /** Embedding model id of the vectors to be classified. Default: the embedder's, else USE-lite's. */
  embeddingModel?: string;
  /** A model file to run instead of the committed one (the evaluation's earlier model). */
  model?: SentimentModelFile;
}

/** p_c * exp(offset_c), renormalised: the same as adding the offsets to the logits. */
function applyOffsets(p: Float64Array, offsets: readonly number[]): void {
  let sum = 0;
  for (let c = 0; c < p.length; c++) {
    p[c] = p[c]! * Math.exp(offsets[c]!);
    sum += p[c]!;
  }
  for (let c = 0; c < p.length; c++) p[c] = p[c]! / sum;
}

/**
 * Builds the classifier from the committed model for the vectors' encoder (validated on creation).
 * Throws when no model reads that encoder's vectors, or when the embedder and `embeddingModel`
 * disagree: a model applied to another encoder's vectors would label silently wrong.
 */
export function createSentimentClassifier(options: SentimentClassifierOptions = {}): SentimentClassifier {
  const { embedder } = options;
  const wanted =
    options.embeddingModel ?? embedder?.model ?? options.model?.embeddingModel ?? DEFAULT_SENTIMENT_EMBEDDING;
  const model = options.model ?? loadSentimentModel(wanted);
  if (model.embeddingModel !== wanted) {
    throw new Error(`sentiment model reads ${model.embeddingModel} vectors, asked for ${wanted}`);
  }
  const at = classIndex(model);
  const sentiment = compileSoftmax(model.softmax);
  const frustrationHead = compileSoftmax(model.frustration.softmax);
  const proba = new Float64Array(model.softmax.classes.length);
  const frustrationProba = new Float64Array(2);
  if (embedder && (embedder.model !== model.embeddingModel || embedder.dimensions !== model.dimensions)) {
    throw new Error(
      `sentiment model expects ${model.embeddingModel} (${model.dimensions}-d) vectors, embedder gives ${embedder.model} (${embedder.dimensions}-d)`,
    );
  }

  function classifyOne(text: string, vector: Float32Array): SentimentResult {
    if (vector.length !== model.dimensions) {
      throw new Error(`sentiment model expects ${model.dimensions}-d vectors, got ${vector.length}`);
    }
    const features = sentimentFeatures(text, vector);
    compiledProba(sentiment, features, proba);
    applyOffsets(proba, model.classOffsets);
    const frustration = compiledProba(frustrationHead, features, frustrationProba)[1]!;
    const probabilities = { positive: proba[at.positive]!, neutral: proba[at.neutral]!, negative: proba[at.negative]! };
    let label: SentimentLabel = "neutral";
    if (probabilities.positive > probabilities[label]) label = "positive";
    if (probabilities.negative > probabilities[label]) label = "negative";
    const score = Math.max(-1, Math.min(1, probabilities.positive - probabilities.negative));
    return { label, score, probabilities, frustration };
  }

  return {
    embeddingModel: model.embeddingModel,
    classifyOne,
    async classify(texts, vectors, signal) {
      let vecs = vectors;
      if (!vecs) {
        if (!embedder)
          throw new Error(
            "sentiment classify() needs vectors or an embedder (createSentimentClassifier({ embedder }))",
          );
        vecs = await embedder.embed(texts, signal);
      }
      if (vecs.length !== texts.length) throw new Error(`got ${vecs.length} vectors for ${texts.length} texts`);
      return texts.map((t, i) => classifyOne(t, vecs[i]!));
    },
  };
}
