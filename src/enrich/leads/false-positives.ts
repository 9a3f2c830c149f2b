/**
 * The known false positives of intent matching, each detected on its own so tests and the
 * evaluation can name which one fired: job posts, self-promotion, news/link posts, posts whose
 * problem is already solved, venting with no ask and nothing a vendor could fix, stories
 * told in a storytelling forum, and how-tos, tips and announcements the poster shares. Their
 * patterns are labelling functions kept as data (functions/not-lead.*.json, functions/context.*.json),
 * each with the reason it is written so.
 */
import type { Post } from "../../model/post.js";
import { patternOf } from "./labelling-functions.js";
import type { Sentence } from "./text.js";

/** Why a post with intent cues is still not a lead. */
export type Disqualifier =
  | "job_post"
  | "self_promotion"
  | "news_link"
  | "resolved"
  | "venting"
  | "story"
  | "shared_tip"
  | "offer_to_readers";

const JOB_TAG = patternOf("not-lead.job-tag");
const JOB_TEXT = patternOf("not-lead.job-text");

/** A hiring post or a for-hire ad: people trade labour, nobody asks a vendor for a product. */
export function isJobPost(post: Post): boolean {
  if (JOB_TAG.test(post.title)) return true;
  const text = `${post.title}\n${post.content.slice(0, 1500)}`;
  return JOB_TEXT.test(text) && !/\?\s*$/.test(post.title.trim());
}

const MADE_IT = patternOf("not-lead.made-it");
const PROMO = patternOf("not-lead.promo-call");
const PROMO_TITLE = patternOf("not-lead.promo-title");

const OFFER_TO_READERS = patternOf("not-lead.offer-to-readers");
const READER_NEED = patternOf("not-lead.reader-need");

/** True when a sentence asks for visitors, users or feedback on the poster's own thing, or offers it. */
export function isPromotionalAsk(sentence: string): boolean {
  return (
    PROMO.test(sentence) ||
    MADE_IT.test(sentence) ||
    OFFER_TO_READERS.test(sentence) ||
    READER_NEED.test(sentence.trim())
  );
}

/**
 * Testers wanted for the poster's own product ("Startup is looking for beta testers, offering free
 * accounts", "The WPUniversity plugin has entered public beta and we need some people"), unless the
 * post asks where, how or when to find them, which a beta-testing service or an adviser could
 * answer ("Are there more sites like betabait.com to get beta testers?"). The answers this
 * moved over the corpora were each read by hand.
 */
const WANTS_TESTERS = patternOf("not-lead.wants-testers");
const FINDING_TESTERS = patternOf("context.finding-testers");

function recruitsTesters(post: Post): boolean {
  const text = `${post.title}\n${post.content.slice(0, 1500)}`;
  return WANTS_TESTERS.test(text) && !FINDING_TESTERS.test(text);
}

/** The poster offers readers what they may need ("if anyone needs a logo, pm me", "Need a Logo for your Small Business?"). */
export function isOfferToReaders(post: Post): boolean {
  return READER_NEED.test(post.title.trim()) || OFFER_TO_READERS.test(`${post.title}\n${post.content.slice(0, 1500)}`);
}

/** "I built X, check it out": the poster is selling, not buying. */
export function isSelfPromotion(post: Post, sentences: readonly Sentence[]): boolean {
  if (PROMO_TITLE.test(post.title) || recruitsTesters(post) || isOfferToReaders(post)) return true;
  const opening = sentences.slice(0, 4);
  return opening.some((s) => MADE_IT.test(s.text)) && sentences.some((s) => PROMO.test(s.text));
}

const FIRST_PERSON = patternOf("context.first-person");

/** Words a headline leaves in lower case. */
const HEADLINE_SMALL = new Set(
  "a an the and or but nor for so yet of in on at to by up as is it vs via with from into onto over per than off out".split(
    " ",
  ),
);

/**
 * A title written as a headline: at least three words besides the small ones, and at least 80%
 * of them capitalised ("Are Movie Theaters Actually Fueling Piracy?", "What If Everybody Didn't
 * Have to Work to Get Paid?"). A poster's own question is written as a sentence ("Which MacBook
 * can code 8 hours without charging?").
 */
export function isHeadlineCase(title: string): boolean {
  const words = (title.match(/[A-Za-z][A-Za-z'’-]*/g) ?? []).filter((w) => !HEADLINE_SMALL.has(w.toLowerCase()));
  if (words.length < 3) return false;
  return words.filter((w) => w[0] !== w[0]!.toLowerCase()).length >= 0.8 * words.length;
}

/**
 * A bare link with a headline: no body and a title that speaks about the world, not the poster.
 * Hacker News links and reddit link posts look like this. Many real asks are a question with no
 * body, so a question counts only in headline case, as link posts carry their article's title.
 * Over the corpora the question titles this catches (no body, no first person, headline case)
 * are 483 link posts and 22 text posts by the sources' own link flags (HN's url, reddit's is_self).
 */
export function isNewsLink(post: Post): boolean {
  if (post.content.trim() !== "") return false;
  const title = post.title.trim();
  if (/^(?:ask|tell) hn\b/i.test(title)) return false;
  if (title.endsWith("?") && !isHeadlineCase(title)) return false;
  return !FIRST_PERSON.test(title);
}

const SOLVED_TITLE = patternOf("not-lead.solved-title");
const SOLVED_LINE = patternOf("not-lead.solved-line");
const SOLVED_TEXT = patternOf("not-lead.solved-text");

/**
 * The poster already has an answer: a [SOLVED] title, an "EDIT: fixed" line, or a "ended up
 * using X" with no ask after it (an earlier choice followed by a new question is still a lead).
 * A vendor that already made it right ("they sent me a brand new mouse", "refunded me in full")
 * makes the post a testimonial, not a lead; negated forms ("haven't refunded me") do not count.
 */
export function isResolved(post: Post, sentences: readonly Sentence[], lastAsk: number): boolean {
  if (SOLVED_TITLE.test(post.title)) return true;
  if (SOLVED_LINE.test(post.content)) return true;
  const solved = sentences.findLast((s) => SOLVED_TEXT.test(s.text) && !s.text.trimEnd().endsWith("?"));
  return solved !== undefined && solved.index >= lastAsk;
}

const FIXABLE = patternOf("context.fixable");

/** Pain about nothing a vendor could fix (no product, service or business process named). */
export function isVenting(sentences: readonly Sentence[]): boolean {
  return !sentences.some((s) => FIXABLE.test(s.text));
}

const STORY_FORUMS = patternOf("not-lead.story-forum");

/** A post of a storytelling forum: a story, not a request. */
export function isStoryForumPost(post: Post): boolean {
  return STORY_FORUMS.test(post.subforum);
}

const TIP_TAG = patternOf("not-lead.tip-tag");

const HOW_I_DID = patternOf("not-lead.how-i-did");

/**
 * A how-to, tip or announcement the poster shares ("[Guide] Building a small form factor PC",
 * "Protip: install Windows from a flash drive", "PSA: don't install the Feb 16th nightly", "How I
 * sped up my code 47 times"): the problems and purchases in it are the poster's material, already
 * dealt with. Over the 92,912 corpus posts this rule takes 53 leads away, 41 of them pain points.
 * The classifier still takes a question the post asks its readers ("Does anyone know of a good one?").
 */
/**
 * A list the poster compiled and presents ("A collection of design inspiration and resources.":
 * "Here are my graphic design bookmarks ..."). A title alone does not tell it from a list the
 * poster wants made ("List of Online Shop Software closely tied to Paypal": "i want to gather a
 * list ..."), which is an ask: over the corpora half of such titles were, so the opening must
 * present it.
 */
const LIST_TITLE = patternOf("not-lead.list-title");
const PRESENTS = patternOf("context.presents");

export function isSharedTip(post: Post): boolean {
  if (LIST_TITLE.test(post.title) && PRESENTS.test(post.content.slice(0, 300))) return true;
  return TIP_TAG.test(post.title) || HOW_I_DID.test(post.title);
}
