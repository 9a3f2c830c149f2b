/**
 * `lead_score` 0..100: mostly how strong the intent is, a little how much the community engaged.
 *
 *   lead_score = round(100 * clamp01(0.85 * intent + 0.15 * engagement))   (0 when not a lead)
 *   intent     = clamp01(strength * TYPE_WEIGHT[type] + 0.1 * urgency - 0.25 * selfPromotion)
 *   engagement = min(1, log1p(upvotes + 2 * comments) / log1p(500))
 *
 * `strength` is the best cue of the chosen type (0..1, with a small bonus when several cues
 * agree, see signals.ts). TYPE_WEIGHT ranks how close each type is to a sale. `urgency` is 1 when
 * the post names a deadline or money ("asap", "urgent", "$500", "budget"). A kept post that also
 * promotes the poster's own product loses 0.25.
 */
import type { Intent } from "./signals.js";

/** How close each lead type is to a purchase. */
export const TYPE_WEIGHT: Record<Intent, number> = {
  buying_intent: 1,
  comparison: 0.95,
  solution_request: 0.9,
  pain_point: 0.8,
  advice_request: 0.7,
};

const URGENCY =
  /\b(?:asap|urgent(?:ly)?|immediately|right away|deadline|by (?:monday|tuesday|wednesday|thursday|friday|tomorrow|next week)|budget)\b|\$\s?\d/i;

/** Inputs of {@link leadScore}. */
export interface ScoreInput {
  type: Intent;
  strength: number;
  text: string;
  upvotes: number;
  comments: number;
  selfPromotion: boolean;
}

function clamp01(x: number): number {
  return Math.max(0, Math.min(1, x));
}

/** Engagement 0..1 on a log scale; 500 weighted interactions saturate it. */
export function engagement(upvotes: number, comments: number): number {
  const n = Math.max(0, upvotes) + 2 * Math.max(0, comments);
  return Math.min(1, Math.log1p(n) / Math.log1p(500));
}

/** The lead score of a post already classified as a lead (1..100). */
export function leadScore(i: ScoreInput): number {
  const urgency = URGENCY.test(i.text) ? 1 : 0;
  const intent = clamp01(i.strength * TYPE_WEIGHT[i.type] + 0.1 * urgency - (i.selfPromotion ? 0.25 : 0));
  return Math.max(1, Math.round(100 * clamp01(0.85 * intent + 0.15 * engagement(i.upvotes, i.comments))));
}
