/**
 * The committed product tagger (tagger-model.json, written by scripts/train-product-tagger.ts):
 * its file shape and checks, and the sentences the tagger reads built from a post's sentences
 * with the gazetteer's names marked. The JSON is imported so tsc copies it beside the code.
 */
import { productMentions } from "../gazetteer.js";
import { type ProductTaggerModel, type SentenceRole, TAGS, type TaggerSentence, tokenize } from "./tagger.js";
import raw from "./tagger-model.json" with { type: "json" };

/** tagger-model.json. */
export interface TaggerModelFile {
  /** The tags in the order of each weight list. */
  tags: readonly string[];
  /** A span is kept when its score reaches this (chosen on dev). */
  threshold: number;
  /** What it was fitted on, for the reader. */
  trainedOn: string;
  /** Passes over the training sentences and the seed of their order, so a re-train can be checked against it. */
  epochs: number;
  seed: number;
  /** Per feature, one weight per tag. */
  weights: Record<string, readonly number[]>;
}

/** Checks a parsed tagger-model.json and turns it into the tagger's model; a bad file is refused naming the field. */
export function compileTaggerModel(file: TaggerModelFile): ProductTaggerModel {
  if (!Array.isArray(file.tags) || file.tags.join() !== TAGS.join())
    throw new Error(`tagger-model.json: tags must be ${TAGS.join(", ")}`);
  if (typeof file.threshold !== "number" || !Number.isFinite(file.threshold))
    throw new Error("tagger-model.json: threshold must be a finite number");
  const weights = new Map<string, readonly number[]>();
  for (const [f, w] of Object.entries(file.weights ?? {})) {
    if (!Array.isArray(w) || w.length !== TAGS.length || w.some((x) => typeof x !== "number" || !Number.isFinite(x)))
      throw new Error(`tagger-model.json: weights of ${JSON.stringify(f)} must be ${TAGS.length} finite numbers`);
    weights.set(f, w);
  }
  if (weights.size === 0) throw new Error("tagger-model.json: no weights");
  return { weights, threshold: file.threshold };
}

/** The committed file, as parsed. */
export const TAGGER_MODEL_FILE = raw as TaggerModelFile;

let committed: ProductTaggerModel | undefined;

/** The committed tagger, checked at first use. */
export function productTagger(): ProductTaggerModel {
  committed ??= compileTaggerModel(TAGGER_MODEL_FILE);
  return committed;
}

/** `text` as the tagger reads it: its role, and the token ranges the gazetteer names. */
export function taggerSentence(text: string, role: SentenceRole): TaggerSentence {
  const tokens = tokenize(text);
  const listed = productMentions(text).flatMap((m): [number, number][] => {
    const first = tokens.findIndex((t) => t.end > m.start);
    let last = first;
    while (last < tokens.length && tokens[last]!.start < m.end) last++;
    return first < 0 || last === first ? [] : [[first, last]];
  });
  return { text, role, listed };
}
