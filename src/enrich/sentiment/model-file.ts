/**
 * The committed sentiment model (model.json): its on-disk shape and loading. The JSON is imported
 * so tsc copies it into dist/ beside the code; it is validated once, at first use.
 */
import type { SentimentLabel } from "../../model/post.js";
import { SENTIMENT_LABELS } from "../../model/post.js";
import { LEXICON_FEATURES } from "./features.js";
import raw from "./model.json" with { type: "json" };
import { checkSoftmaxModel, type SoftmaxModel } from "./softmax.js";

/** model.json: the softmax weights plus what is needed to reproduce and audit them. */
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
   * Added to the softmax logits, per class in `softmax.classes` order: a class-prior correction
   * chosen on GoEmotions dev (training re-weights classes, so the raw argmax is not the
   * macro-F1-best decision). Probabilities, label and score all come from the corrected logits.
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

let loaded: SentimentModelFile | undefined;

/** The committed model, validated: classes are the sentiment labels and every width matches. */
export function loadSentimentModel(): SentimentModelFile {
  if (loaded) return loaded;
  const m = raw as unknown as SentimentModelFile;
  if (m.format !== "threadsight-sentiment-v1") throw new Error(`unknown sentiment model format "${String(m.format)}"`);
  const classes = [...m.softmax.classes].sort();
  if (classes.join() !== [...SENTIMENT_LABELS].sort().join()) {
    throw new Error(`sentiment model classes ${m.softmax.classes.join(",")} differ from ${SENTIMENT_LABELS.join(",")}`);
  }
  if (m.lexiconFeatures.join() !== LEXICON_FEATURES.join())
    throw new Error("sentiment model lexicon features differ from features.ts");
  checkSoftmaxModel(m.softmax, m.dimensions + LEXICON_FEATURES.length);
  if (m.classOffsets.length !== m.softmax.classes.length || !m.classOffsets.every(Number.isFinite)) {
    throw new Error("sentiment model classOffsets must hold one finite number per class");
  }
  checkSoftmaxModel(m.frustration.softmax, m.dimensions + LEXICON_FEATURES.length);
  if (m.frustration.softmax.classes.join() !== "other,frustration")
    throw new Error("frustration head classes must be other,frustration");
  loaded = m;
  return m;
}

/** Index of each label in the model's class order. */
export function classIndex(m: SentimentModelFile): Record<SentimentLabel, number> {
  const at = (l: SentimentLabel) => m.softmax.classes.indexOf(l);
  return { positive: at("positive"), neutral: at("neutral"), negative: at("negative") };
}
