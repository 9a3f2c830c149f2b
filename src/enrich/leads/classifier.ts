/**
 * The lead classifier run at ingest: the lead model (lead-model.ts) decides whether a post is a
 * lead, of which type, and its score (100 * P(lead)), from the post's vector and what the rules
 * saw (lead-features.ts). A few rules keep a veto, those whose precision as "not a lead" was
 * measured high on the labelled set (VETOES). The extracted fields (target product, pain point,
 * opportunity, industry) still come from the rules' matches (rule-classifier.ts).
 *
 * The model was fitted on USE-lite vectors. Like the sentiment model it refuses vectors of another
 * width or a post without its vector: the ingest enricher gives it USE-lite vectors whichever
 * embedder the index uses (see src/ingest/ingest-enricher.ts).
 */
import type { Post } from "../../model/post.js";
import type { SentimentResult } from "../sentiment/classifier.js";
import { leadFeatureRow } from "./lead-features.js";
import { AS_LEAD_TYPE, compileLeadModel, type LeadModelFile, loadLeadModel, modelDecision } from "./lead-model.js";
import {
  createRuleLeadClassifier,
  type LeadClassifier,
  type LeadClassifierOptions,
  type LeadDecision,
  leadFieldsFor,
  notLead,
  type RuleReading,
} from "./rule-classifier.js";
import type { Intent } from "./signals.js";
import { sentenceView } from "./text.js";

export type { LeadClassifier, LeadDecision, LeadFields } from "./rule-classifier.js";

/** The rule tests that still veto a lead, by the name a vetoed decision carries in `rejectedAs`. */
export const VETOES = ["job_post", "self_promotion", "offer_to_readers"] as const;
export type Veto = (typeof VETOES)[number];

/** Which veto, if any, a rule reading calls for. */
export function vetoOf(reading: RuleReading): Veto | undefined {
  if (reading.detail.jobPost) return "job_post";
  if (reading.detail.offerToReaders) return "offer_to_readers";
  // Self-promotion vetoes only when the rules found no ask besides the promotion itself.
  if (reading.rejectedAs === "self_promotion") return "self_promotion";
  return undefined;
}

/** Options of {@link createLeadClassifier}. */
export interface ModelLeadClassifierOptions {
  /** A model file other than the committed one (tests, training). */
  model?: LeadModelFile;
  /** Options of the rule classifier whose reading the model takes as features. */
  rules?: LeadClassifierOptions;
}

/** Builds the ingest lead classifier (the committed model unless told). */
export function createLeadClassifier(options: ModelLeadClassifierOptions = {}): LeadClassifier {
  const model = compileLeadModel(options.model ?? loadLeadModel());
  const { dimensions, embeddingModel, leadThreshold } = model.file;
  const rules = createRuleLeadClassifier(options.rules);
  return {
    classify(post: Post, vector?: Float32Array, sentiment?: SentimentResult): LeadDecision {
      if (vector === undefined || vector.length !== dimensions)
        throw new Error(
          `lead model expects the post's ${embeddingModel} vector (${dimensions}-d), got ${vector === undefined ? "none" : `${vector.length}-d`}`,
        );
      if (sentiment === undefined) throw new Error("lead model needs the post's sentiment (its tone is a feature)");
      const reading = rules.read(post, vector, sentiment);
      const veto = vetoOf(reading);
      if (veto !== undefined) return notLead(reading.industry, veto);
      const p = model.probabilities(leadFeatureRow(post, vector, reading, sentiment));
      const { leadClass, pLead } = modelDecision(p, leadThreshold);
      if (leadClass === undefined) return notLead(reading.industry, "");
      const type = AS_LEAD_TYPE[leadClass] as Intent;
      const { matches, sentences } = reading.detail;
      const view = reading.detail.view ?? sentenceView(sentences);
      return {
        leadType: type,
        leadScore: Math.max(1, Math.round(100 * pLead)),
        ...leadFieldsFor(type, matches, sentences, view, reading.detail.industry),
        industry: reading.industry,
        rejectedAs: "",
      };
    },
  };
}
