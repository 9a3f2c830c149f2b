/**
 * The votes of the labelling functions on one post, in the classes of the lead model: every cue
 * (functions/<intent>.*.json) that matched one of the poster's sentences votes its lead type's
 * class, and each rejection test of false-positives.ts that holds votes none. Text only (no
 * vector, no tone), so the label model can read them over the whole unlabelled corpus cheaply.
 */
import type { Post } from "../../model/post.js";
import {
  isJobPost,
  isNewsLink,
  isOfferToReaders,
  isResolved,
  isSelfPromotion,
  isSharedTip,
  isStoryForumPost,
  isVenting,
} from "./false-positives.js";
import { labellingFunctions } from "./labelling-functions.js";
import type { LeadModelClass } from "./lead-classes.js";
import { type Intent, type IntentMatch, matchIntents } from "./signals.js";
import { type Sentence, sentencesOf, sentenceView } from "./text.js";

/** The class a cue of each intent votes for (the guideline folds advice into solution requests). */
const CLASS_OF: Record<Intent, LeadModelClass> = {
  solution_request: "solution_request",
  advice_request: "solution_request",
  pain_point: "pain_point",
  comparison: "switching",
  buying_intent: "buying_intent",
};

/** The rejection tests that vote none, by name. */
const REJECTIONS: Record<string, (post: Post, sentences: readonly Sentence[]) => boolean> = {
  "test.job_post": (p) => isJobPost(p),
  "test.self_promotion": (p, s) => isSelfPromotion(p, s),
  "test.offer_to_readers": (p) => isOfferToReaders(p),
  "test.news_link": (p) => isNewsLink(p),
  "test.resolved": (p, s) => isResolved(p, s, -1),
  "test.story_forum": (p) => isStoryForumPost(p),
  "test.shared_tip": (p) => isSharedTip(p),
  "test.venting": (_, s) => isVenting(s),
};

/** A voting function: its name and the class it votes for when it fires. */
export interface Voter {
  name: string;
  votes: LeadModelClass;
}

/** Every voter, in the order of a vote row: the cues by file name, then the rejection tests. */
export const VOTERS: readonly Voter[] = [
  ...[...labellingFunctions().values()]
    .filter((f) => f.votes !== "none" && f.votes !== "abstain")
    .map((f) => ({ name: f.name, votes: CLASS_OF[f.votes as Intent] })),
  ...Object.keys(REJECTIONS).map((name) => ({ name, votes: "none" as const })),
];

const INDEX = new Map(VOTERS.map((v, i) => [v.name, i]));

/**
 * The vote row of a post: 1 where a voter fired, else 0 (VOTERS order). `matches` are the cue
 * matches the caller already has (the rule reading's), else they are computed here.
 */
export function lfVotes(
  post: Post,
  sentences: readonly Sentence[] = sentencesOf(post),
  matches: Record<Intent, IntentMatch> = matchIntents(sentences, sentenceView(sentences)),
): Uint8Array {
  const row = new Uint8Array(VOTERS.length);
  for (const m of Object.values(matches)) for (const name of m.fired) row[INDEX.get(name)!] = 1;
  for (const [name, test] of Object.entries(REJECTIONS)) if (test(post, sentences)) row[INDEX.get(name)!] = 1;
  return row;
}
