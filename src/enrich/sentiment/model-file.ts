/**
 * The committed sentiment models, one per bundled encoder (model-<embedding model id>.json): their
 * on-disk shape, validation and the pick by embedding model. The JSON files are imported so tsc
 * copies them into dist/ beside the code; each is validated once, at first use.
 */
import type { SentimentLabel } from "../../model/post.js";
import { SENTIMENT_LABELS } from "../../model/post.js";
import { MINILM_MODEL_ID } from "../minilm/minilm-files.js";
import { USE_MODEL_ID } from "../use-embedder.js";
import { LEXICON_FEATURES } from "./features.js";
import miniLmRaw from "./model-all-minilm-l6-v2-384.json" with { type: "json" };
import useLiteRaw from "./model-use-lite-512.json" with { type: "json" };
import { checkSoftmaxModel, type SoftmaxModel } from "./softmax.js";

/** A model file: the softmax weights plus what is needed to reproduce and audit them. */
export interface SentimentModelFile {
  format: "threadsight-sentiment-v1";
  /** Embedding model the weights expect (the Embedder's `model` id) and its dimensions. */
  embeddingModel: string;
  dimensions: number;
  /** Feature names after the embedding, in order. */
  lexiconFeatures: string[];
  /** Where the training data came from, its licence and which rows were used. */
  provenance: Record<string, string | number>;
  hyperparameters: Record<string, number | string | number[]>;
  /** Macro-F1 on the GoEmotions group dev split at training time (with {@link classOffsets}). */
  devMacroF1: number;
  softmax: SoftmaxModel;
  /**
   * Added to the softmax logits, per class in `softmax.classes` order: a class-prior correction.
   * All zero for a plain class-balanced regression; probabilities, label and score all come from
   * the corrected logits.
   */
  classOffsets: number[];
  /**
   * Second head on the same features: P(frustration), i.e. that the text shows one of
   * `emotions` (GoEmotions labels). Lead detection reads it as the tone of a complaint.
   */
  frustration: {
    emotions: string[];
    /** F1 on GoEmotions dev at 0.5 (the head is class-balanced). */
    devF1: number;
    /** The threshold with the best F1 on GoEmotions dev (steps of 0.05). */
    devBestThreshold: number;
    softmax: SoftmaxModel;
  };
}

/** Embedding model id the service's default encoder writes; the model used when none is named. */
export const DEFAULT_SENTIMENT_EMBEDDING = USE_MODEL_ID;

/** The committed files, by the embedding model id their weights expect. */
const RAW: Readonly<Record<string, unknown>> = {
  [USE_MODEL_ID]: useLiteRaw,
  [MINILM_MODEL_ID]: miniLmRaw,
};

/** Embedding model ids that have a committed sentiment model. */
export const SENTIMENT_EMBEDDINGS: readonly string[] = Object.freeze(Object.keys(RAW));

const loaded = new Map<string, SentimentModelFile>();

/**
 * Throws unless `raw` is a well-formed model file whose classes are the sentiment labels and whose
 * widths match its dimensions; `name` says which file in the message.
 */
export function checkSentimentModel(raw: unknown, name: string): SentimentModelFile {
  const m = raw as SentimentModelFile;
  if (m.format !== "threadsight-sentiment-v1")
    throw new Error(`${name}: unknown sentiment model format "${String(m.format)}"`);
  const classes = [...m.softmax.classes].sort();
  if (classes.join() !== [...SENTIMENT_LABELS].sort().join()) {
    throw new Error(
      `${name}: sentiment model classes ${m.softmax.classes.join(",")} differ from ${SENTIMENT_LABELS.join(",")}`,
    );
  }
  if (m.lexiconFeatures.join() !== LEXICON_FEATURES.join())
    throw new Error(`${name}: sentiment model lexicon features differ from features.ts (retrain it)`);
  checkSoftmaxModel(m.softmax, m.dimensions + LEXICON_FEATURES.length);
  if (m.classOffsets.length !== m.softmax.classes.length || !m.classOffsets.every(Number.isFinite)) {
    throw new Error(`${name}: sentiment model classOffsets must hold one finite number per class`);
  }
  checkSoftmaxModel(m.frustration.softmax, m.dimensions + LEXICON_FEATURES.length);
  if (m.frustration.softmax.classes.join() !== "other,frustration")
    throw new Error(`${name}: frustration head classes must be other,frustration`);
  return m;
}

/** Whether a committed sentiment model reads vectors of `embeddingModel`. */
export function hasSentimentModel(embeddingModel: string): boolean {
  return Object.hasOwn(RAW, embeddingModel);
}

/**
 * The committed model for vectors of `embeddingModel`, validated. An embedding model without one
 * is refused by name: labels from another encoder's weights would be silently wrong.
 */
export function loadSentimentModel(embeddingModel: string = DEFAULT_SENTIMENT_EMBEDDING): SentimentModelFile {
  const cached = loaded.get(embeddingModel);
  if (cached) return cached;
  if (!hasSentimentModel(embeddingModel)) {
    throw new Error(
      `no sentiment model for embedding model "${embeddingModel}": models exist for ${SENTIMENT_EMBEDDINGS.join(", ")} (train one with scripts/train-sentiment.ts)`,
    );
  }
  const file = `model-${embeddingModel}.json`;
  const m = checkSentimentModel(RAW[embeddingModel], file);
  if (m.embeddingModel !== embeddingModel)
    throw new Error(`${file} holds weights for ${m.embeddingModel}, not ${embeddingModel}`);
  loaded.set(embeddingModel, m);
  return m;
}

/** Index of each label in the model's class order. */
export function classIndex(m: SentimentModelFile): Record<SentimentLabel, number> {
  const at = (l: SentimentLabel) => m.softmax.classes.indexOf(l);
  return { positive: at("positive"), neutral: at("neutral"), negative: at("negative") };
}
