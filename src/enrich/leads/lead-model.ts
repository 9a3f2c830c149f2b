/**
 * The lead model: a class-balanced softmax over [the post's USE-lite vector, the rule features of
 * lead-features.ts] with the classes of the labelling guideline, fitted by
 * scripts/train-lead-model.ts on the train split of the project's labelled lead set. This module
 * holds the file's shape, its validation and inference; lead-model.json is imported so tsc copies
 * it into dist/ beside the code.
 */
import { type CompiledSoftmax, compiledProba, compileSoftmax, type SoftmaxModel } from "../sentiment/softmax.js";
import { LEAD_MODEL_CLASSES, type LeadModelClass } from "./lead-classes.js";
import { RULE_FEATURES } from "./lead-features.js";
import raw from "./lead-model.json" with { type: "json" };

export { AS_LEAD_TYPE, LEAD_MODEL_CLASSES, type LeadModelClass } from "./lead-classes.js";

/** lead-model.json. */
export interface LeadModelFile {
  format: "threadsight-lead-model-v1";
  /** Embedding model the weights expect (the Embedder's `model` id) and its dimensions. */
  embeddingModel: string;
  dimensions: number;
  /** Names of the features after the vector, in order ({@link RULE_FEATURES}). */
  ruleFeatures: string[];
  /** A post is a lead when 1 - P(none) reaches this (chosen on the dev split). */
  leadThreshold: number;
  /** Where the labels came from, how the model was chosen, and its dev figures. */
  provenance: Record<string, string | number>;
  hyperparameters: Record<string, number | string>;
  softmax: SoftmaxModel;
}

function fail(field: string, rule: string): never {
  throw new Error(`lead model: ${field} ${rule}`);
}

function finiteRow(row: unknown, length: number, field: string): void {
  if (!Array.isArray(row) || row.length !== length) fail(field, `must be an array of ${length} numbers`);
  if (!row.every((v) => typeof v === "number" && Number.isFinite(v))) fail(field, "must hold finite numbers only");
}

/** Checks a parsed lead-model.json; a malformed file is refused naming the field and the rule. */
export function checkLeadModel(value: unknown): LeadModelFile {
  if (typeof value !== "object" || value === null) fail("file", "must be a JSON object");
  const m = value as Partial<LeadModelFile>;
  if (m.format !== "threadsight-lead-model-v1") fail("format", `must be "threadsight-lead-model-v1"`);
  if (typeof m.embeddingModel !== "string" || m.embeddingModel === "") fail("embeddingModel", "must be a model id");
  if (!Number.isInteger(m.dimensions) || (m.dimensions as number) < 1)
    fail("dimensions", "must be a positive whole number");
  if (!Array.isArray(m.ruleFeatures) || m.ruleFeatures.join() !== RULE_FEATURES.join())
    fail("ruleFeatures", "must list the features of lead-features.ts, in order (retrain the model)");
  if (typeof m.leadThreshold !== "number" || !(m.leadThreshold > 0 && m.leadThreshold < 1))
    fail("leadThreshold", "must be a number between 0 and 1 (exclusive)");
  const s = m.softmax;
  if (typeof s !== "object" || s === null) fail("softmax", "must be an object");
  if (!Array.isArray(s.classes) || s.classes.join() !== LEAD_MODEL_CLASSES.join())
    fail("softmax.classes", `must be ${LEAD_MODEL_CLASSES.join(",")}`);
  const features = (m.dimensions as number) + RULE_FEATURES.length;
  finiteRow(s.mean, features, "softmax.mean");
  finiteRow(s.std, features, "softmax.std");
  if (!s.std.every((v) => v > 0)) fail("softmax.std", "must be positive");
  if (!Array.isArray(s.weights) || s.weights.length !== LEAD_MODEL_CLASSES.length)
    fail("softmax.weights", `must hold one row per class (${LEAD_MODEL_CLASSES.length})`);
  s.weights.forEach((row, c) => finiteRow(row, features, `softmax.weights[${c}]`));
  finiteRow(s.bias, LEAD_MODEL_CLASSES.length, "softmax.bias");
  return m as LeadModelFile;
}

let committed: LeadModelFile | undefined;

/** The committed lead-model.json, validated at first use. */
export function loadLeadModel(): LeadModelFile {
  committed ??= checkLeadModel(raw);
  return committed;
}

/** A model ready for inference. */
export interface LeadModel {
  readonly file: LeadModelFile;
  /** Class probabilities (LEAD_MODEL_CLASSES order) of one feature row; the returned array is reused. */
  probabilities(features: Float64Array): Float64Array;
}

/** Compiles a checked model file. */
export function compileLeadModel(file: LeadModelFile): LeadModel {
  const compiled: CompiledSoftmax = compileSoftmax(file.softmax);
  const out = new Float64Array(LEAD_MODEL_CLASSES.length);
  return { file, probabilities: (features) => compiledProba(compiled, features, out) };
}

/** The decision the model makes from its probabilities: the most likely lead type, if P(lead) reaches the threshold. */
export function modelDecision(
  p: Float64Array,
  threshold: number,
): { leadClass: LeadModelClass | undefined; pLead: number } {
  const pLead = 1 - p[0]!;
  if (pLead < threshold) return { leadClass: undefined, pLead };
  let best = 1;
  for (let c = 2; c < p.length; c++) if (p[c]! > p[best]!) best = c;
  return { leadClass: LEAD_MODEL_CLASSES[best], pLead };
}
