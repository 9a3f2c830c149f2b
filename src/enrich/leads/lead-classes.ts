/**
 * The classes of the lead model and the label model: "none" and the labelling guideline's lead
 * types, in the order of their rows, and the lead type each is stored as.
 */
import type { LeadType } from "../../model/post.js";

/** The classes, in row order. */
export const LEAD_MODEL_CLASSES = ["none", "solution_request", "pain_point", "switching", "buying_intent"] as const;
export type LeadModelClass = (typeof LEAD_MODEL_CLASSES)[number];

/** The lead type a class is stored as ("switching" is the guideline's name for a comparison). */
export const AS_LEAD_TYPE: Record<LeadModelClass, LeadType> = {
  none: "",
  solution_request: "solution_request",
  pain_point: "pain_point",
  switching: "comparison",
  buying_intent: "buying_intent",
};
