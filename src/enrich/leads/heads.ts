/**
 * The lead heads: logistic regressions over a post's USE-lite embedding, fitted by
 * scripts/train-lead-heads.ts on sentences written by hand for this project (seeds/). The rules
 * in signals.ts name the wording of an ask or a complaint; a head judges the meaning, so each can
 * check the other.
 *   suggestion: P(the text asks for a change, a feature or a recommendation)
 *   complaint:  P(the text complains about a product, service, company or institution)
 */

import {
  type CompiledSoftmax,
  checkSoftmaxModel,
  compiledProba,
  compileSoftmax,
  type SoftmaxModel,
} from "../sentiment/softmax.js";
import complaintRaw from "./complaint-model.json" with { type: "json" };
import suggestionRaw from "./suggestion-model.json" with { type: "json" };

/** The heads there are. */
export const LEAD_HEADS = ["suggestion", "complaint"] as const;
export type LeadHead = (typeof LEAD_HEADS)[number];

/** <head>-model.json. */
export interface LeadHeadFile {
  format: "threadsight-lead-head-v1";
  head: LeadHead;
  /** Embedding model the weights expect and its dimensions. */
  embeddingModel: string;
  dimensions: number;
  /** Where the training sentences came from and how the model was chosen. */
  provenance: Record<string, string | number>;
  l2: number;
  /** Classes "other" and the head's name. */
  softmax: SoftmaxModel;
}

const RAW: Record<LeadHead, unknown> = { suggestion: suggestionRaw, complaint: complaintRaw };
const loaded = new Map<LeadHead, LeadHeadFile>();
const compiled = new Map<LeadHead, CompiledSoftmax>();
const proba = new Float64Array(2);

/** The committed model of `head`, validated. */
export function loadLeadHead(head: LeadHead): LeadHeadFile {
  const cached = loaded.get(head);
  if (cached) return cached;
  const m = RAW[head] as LeadHeadFile;
  if (m.format !== "threadsight-lead-head-v1" || m.head !== head)
    throw new Error(`${head}-model.json is not a ${head} head`);
  checkSoftmaxModel(m.softmax, m.dimensions);
  if (m.softmax.classes.join() !== `other,${head}`) throw new Error(`${head} head classes must be other,${head}`);
  loaded.set(head, m);
  compiled.set(head, compileSoftmax(m.softmax));
  return m;
}

/** P(head's class) for an embedding, or undefined when there is none or its width is not the model's. */
export function headProbability(head: LeadHead, vector: Float32Array | undefined): number | undefined {
  const m = loadLeadHead(head);
  if (!vector || vector.length !== m.dimensions) return undefined;
  return compiledProba(compiled.get(head)!, vector, proba)[1]!;
}
