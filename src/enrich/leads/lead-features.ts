/**
 * The lead model's inputs beside the post vector: what the rules saw (each intent's strength and
 * whether it fired, the rule decision, its veto, the vetoes' own tests), the heads, the tone, the
 * post's shape, the label model's class probabilities and every labelling function's vote. Names
 * are stored with the model so a file trained on other features is refused.
 */
import type { Post } from "../../model/post.js";
import type { SentimentResult } from "../sentiment/classifier.js";
import { compileLabelModel, type LabelModel } from "./label-model.js";
import { LEAD_MODEL_CLASSES } from "./lead-classes.js";
import { lfVotes, VOTERS } from "./lf-votes.js";
import { MIN_STRENGTH, type RuleReading } from "./rule-classifier.js";
import { engagement } from "./score.js";
import type { Intent } from "./signals.js";

const INTENTS: readonly Intent[] = ["solution_request", "advice_request", "comparison", "pain_point", "buying_intent"];
const RULE_TYPES = ["", ...INTENTS] as const;
const REJECTIONS = ["job_post", "self_promotion", "news_link", "resolved", "venting", "story", "shared_tip"] as const;

/** The rule features' names, in the order {@link ruleFeatures} writes them. */
export const RULE_FEATURES: readonly string[] = [
  ...INTENTS.map((t) => `strength.${t}`),
  ...INTENTS.map((t) => `fires.${t}`),
  "rule.score",
  ...RULE_TYPES.map((t) => `rule.type.${t || "none"}`),
  ...REJECTIONS.map((r) => `rule.rejected.${r}`),
  "test.job_post",
  "test.self_promotion",
  "test.offer_to_readers",
  "head.suggestion",
  "head.complaint",
  "tone.negative",
  "tone.positive",
  "tone.frustration",
  "post.engagement",
  "post.has_body",
  "post.title_question",
  ...LEAD_MODEL_CLASSES.map((c) => `label_model.${c}`),
  ...VOTERS.map((v) => `vote.${v.name}`),
];

let labelModel: LabelModel | undefined;

/** Writes the rule features of a post into `out` from `offset` (RULE_FEATURES.length values). */
export function ruleFeatures(
  post: Post,
  reading: RuleReading,
  sentiment: SentimentResult,
  out: Float64Array,
  offset: number,
): void {
  let i = offset;
  const { matches, heads } = reading.detail;
  for (const t of INTENTS) out[i++] = matches[t].strength;
  for (const t of INTENTS) out[i++] = matches[t].strength >= MIN_STRENGTH ? 1 : 0;
  out[i++] = reading.leadScore / 100;
  for (const t of RULE_TYPES) out[i++] = reading.leadType === t ? 1 : 0;
  for (const r of REJECTIONS) out[i++] = reading.rejectedAs === r ? 1 : 0;
  out[i++] = reading.detail.jobPost ? 1 : 0;
  out[i++] = reading.detail.selfPromotion ? 1 : 0;
  out[i++] = reading.detail.offerToReaders ? 1 : 0;
  // Without the vector the heads say nothing; 0.5 is their "no opinion".
  out[i++] = heads.suggestion ?? 0.5;
  out[i++] = heads.complaint ?? 0.5;
  out[i++] = sentiment.probabilities.negative;
  out[i++] = sentiment.probabilities.positive;
  out[i++] = sentiment.frustration;
  out[i++] = engagement(post.upvotes, post.comments);
  out[i++] = post.content.trim() === "" ? 0 : 1;
  out[i++] = post.title.trimEnd().endsWith("?") ? 1 : 0;
  // A story-forum post's reading stops before the cues run; its votes are read here then.
  const { detail } = reading;
  const votes = lfVotes(post, detail.sentences, detail.view === undefined ? undefined : detail.matches);
  labelModel ??= compileLabelModel();
  const q = labelModel.posterior(votes);
  for (let c = 0; c < q.length; c++) out[i++] = q[c]!;
  for (let j = 0; j < votes.length; j++) out[i++] = votes[j]!;
}

/** The model's whole input row: the vector, then the rule features. */
export function leadFeatureRow(
  post: Post,
  vector: Float32Array,
  reading: RuleReading,
  sentiment: SentimentResult,
  out: Float64Array = new Float64Array(vector.length + RULE_FEATURES.length),
): Float64Array {
  out.set(vector);
  ruleFeatures(post, reading, sentiment, out, vector.length);
  return out;
}
