/**
 * The known false positives of intent matching, each detected on its own so tests and the
 * evaluation can name which one fired: job posts, self-promotion, news/link posts, posts whose
 * problem is already solved, venting with no ask and nothing a vendor could fix, stories
 * told in a storytelling forum, and how-tos, tips and announcements the poster shares.
 */
import type { Post } from "../../model/post.js";
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

// "[forhire]" is r/forhire's own tag, written as one word.
const JOB_TAG =
  /^\s*[[(]\s*(?:hiring|for ?hire|hire me|job|jobs|job offer|job opening|freelancer available|task|gig|paid|remote)\s*[\])]/i;
const JOB_TEXT =
  /\b(?:we(?:'re| are) (?:now )?hiring|now hiring|is hiring|are hiring|job (?:opening|posting)s?|positions? (?:available|open)|open positions?|send (?:me |us )?(?:your |a )?(?:resume|cv)|apply (?:now|here|today|online)|competitive salary|(?:available|looking) for (?:hire|freelance (?:work|projects)|new clients)|for hire|hire me)\b/i;

/** A hiring post or a for-hire ad: people trade labour, nobody asks a vendor for a product. */
export function isJobPost(post: Post): boolean {
  if (JOB_TAG.test(post.title)) return true;
  const text = `${post.title}\n${post.content.slice(0, 1500)}`;
  return JOB_TEXT.test(text) && !/\?\s*$/.test(post.title.trim());
}

const MADE_IT =
  /\b(?:i|we)(?:'ve| have)? (?:just |finally |recently )?(?:built|made|created|launched|released|developed|designed|started|wrote|published|opened|finished (?:up|building|making|writing|developing|coding) (?:a|an|my|our)\b)\b|\b(?:i|we)(?:'m| am| are|'re) (?:launching|releasing)\b|(?:^|[-–:,] )(?:just|finally|recently) (?:built|made|created|launched|released|developed|published|finished (?:up|building|making|writing|developing|coding) (?:a|an|my|our)\b)\b|\bmy (?:new|first|latest) (?:[\w-]+ ){0,3}(?:app|site|website|startup|product|tool|game|service|saas|plugin|extension)\b/i;
/**
 * Calls to action: the poster wants visitors, users or praise, not a product. "Let me know if you
 * need more info" is a help seeker's offer, not one of them.
 */
const PROMO =
  /\b(?:check (?:it|us|this|them|me) out|take a look|have a look|let me know what you (?:guys )?think|what do you (?:guys )?think|(?:any |some |looking for |would love |appreciate (?:any )?)?feedback|sign up|beta (?:testers?|invites?|access)|introducing|announcing|use (?:my |the )?(?:code|coupon)|promo code|discount code|free trial|download (?:it|now|the app|our app|my app)|now available|available now|try (?:it|the app|our|my) out|let me know (?:your|what|how|if(?! (?:you|u) (?:need|want|require)s? (?:any |some )?(?:more|additional|further|extra|other)? ?(?:info|information|details|specs|logs)))|first impressions?)\b/i;
/** A title that launches something, or offers the poster's own expertise ("I'm a startup lawyer, and I can answer some questions", an AMA). */
const PROMO_TITLE =
  /^\s*(?:show hn|launch hn|introducing|announcing|\[?(?:launch|release|promo|ad|offer|giveaway)\]?[:\s])|\b(?:i am an?|i'?m an?) [\w -]{1,40}(?:,|\.|;)? (?:and )?(?:i can|i'?ll|i will|happy to|ask me) (?:answer|help|anything)\b|\bi can answer (?:some |any |your )?questions\b|\b(?:ama|ask me anything)\b/i;

/**
 * The poster offers what readers may need: "if anyone is looking for a cheap logo design let me
 * know!", "if you are looking for a guy who can help you in engineering aspects please contact
 * me", and a title asking after the reader's need ("Need a Logo for your Small Business?", "Need a
 * graphic artist for your app?"). Not a help seeker's "if you need more info, let me know". The
 * leads of the corpora that had one were all offers.
 */
const OFFER_TO_READERS =
  /\bif (?:any ?one|anybody|you|u)(?: here| out there| from \w+)?(?:'re| is| are)? (?:\w+ )?(?:looking for|in need of|needs?) (?!(?:any ?)?(?:more|further|additional|extra|other)\b)(?:a |an |some |any )?[^.!?\n]{1,60}?\b(?:let me know|pm me|message me|contact me|get in touch|hit me up|shoot me|email me)\b/i;
const READER_NEED = /^(?:need|want|looking for) (?:a |an |some )?[\w\s-]{1,40}? for your\b/i;

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
const WANTS_TESTERS =
  /\b(?:looking for|in need of|need|needs|seeking|recruiting|want)\s+(?:\w+\s+){0,2}beta[- ]?testers?\b/i;
const FINDING_TESTERS =
  /\b(?:where|when (?:should|do|can|would) (?:i|we)|how (?:do|can|could|should|would) (?:i|we|you|one) (?:get|find|recruit)|how to (?:get|find|recruit)|(?:any|other|more|good) (?:sites?|websites?|forums?|platforms?|services?|communit(?:y|ies))|(?:sites?|websites?|forums?|platforms?|services?|communit(?:y|ies)) (?:like|to|for|where|that))\b/i;

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

const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|my|me|we|we're|our|us)\b/i;

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

const SOLVED_TITLE =
  /^\s*[[(]?\s*(?:solved|resolved|fixed)\s*[\])]|[[(]\s*(?:solved|resolved|fixed)\s*[\])]|\b(?:solved|resolved|fixed)\s*[!.]*\s*$/i;
const SOLVED_LINE =
  /^\s*(?:edit|update|edit\s*\d|update\s*\d)\s*[:\-–]?.{0,80}\b(?:solved|fixed|resolved|figured (?:it )?out|ended up|went with|found (?:a|the) (?:solution|fix|answer)|sorted|got it working|works now)\b/im;
const SOLVED_TEXT =
  /\b(?:problem|issue) (?:is |has been |was )?(?:solved|resolved|fixed)\b|\b(?:ended up (?:using|going with|buying|choosing|picking)|i went with|we went with|found (?:a|the) (?:solution|fix)|figured (?:it|this) out|got it working|works (?:now|fine now))\b|(?<!\b(?:not|never|yet|still|\w+n'?t) )\b(?:sent|shipped|gave) (?:me|us) (?:a (?:new|brand new|replacement)|replacements?|a new one)\b|\bgot me a (?:new|brand new|replacement)\b|(?<!\b(?:not|never|yet|still|\w+n'?t) )\b(?:refunded|reimbursed) (?:me|us|my money|in full)\b/i;

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

/** Things a vendor could fix: a product, a service or a business process. */
const FIXABLE =
  /@\w|\b(?:app|software|tool|service|website|site|server|account|order|delivery|shipping|package|parcel|payment|invoice|billing|bill|refund|subscription|support|customer service|store|shop|inventory|sales|customers?|clients?|leads?|traffic|ranking|seo|hosting|domain|email|e-?mail|network|wifi|wi-fi|internet|connection|router|laptop|computer|pc|phone|printer|drive|backup|database|code|bug|update|version|plugin|theme|api|product|price|pricing|fees?|bank|card|flight|train|bus|booking|reservation|crm|accounting|payroll|taxes|loans?|credit|insurance|employees?|staff|contractors?|hiring|marketing|ads?|campaign|signal|coverage|battery|screen|device|system|platform)\b/i;

/** Pain about nothing a vendor could fix (no product, service or business process named). */
export function isVenting(sentences: readonly Sentence[]): boolean {
  return !sentences.some((s) => FIXABLE.test(s.text));
}

/**
 * Forums whose rules admit only stories, told by whoever served the customer: the support tech,
 * the clerk, the waiter. Their posts are full of problems, asks and purchases, all retold from the
 * other side of the counter, so none is the poster's own; in the reddit corpus 91% of
 * r/talesfromtechsupport read as leads before this rule. Reddit's "Tales From ..." family and the
 * forums of the same kind; names compared in lower case.
 */
const STORY_FORUMS = new Set([
  "talesfromtechsupport",
  "talesfromretail",
  "talesfromyourserver",
  "talesfromcallcenters",
  "talesfromthefrontdesk",
  "talesfromthepizzaguy",
  "talesfromthelaw",
  "talesfrommedicine",
  "talesfromthesquadcar",
  "talesfromthepharmacy",
  "talesfromtheclassroom",
  "talesfromcablesupport",
  "idontworkherelady",
  "maliciouscompliance",
]);

/** A post of a storytelling forum: a story, not a request. */
export function isStoryForumPost(post: Post): boolean {
  return STORY_FORUMS.has(post.subforum.toLowerCase());
}

/** A title's tag for a tip, guide or announcement: "[Guide]", "Protip:", "LPT:", "PSA -", "Tutorial:". */
const TIP_TAG =
  /^\s*(?:[[(]\s*(?:guide|tutorial|protip|pro tip|lpt|tip|psa|how-?to)\s*[\])]|(?:guide|tutorial|protip|pro tip|lpt|quick tip|tip|psa)\s*[:\-–])|^\s*my (?:guide|tutorial)\b/i;

/**
 * "How I" and a past tense: the poster tells how it went ("How I sped up my Python code 47
 * times", "How I got out of my Sprint contract"). Not the present ("How I update Ubuntu", often
 * followed by "is this good practice?") nor "How I wish", "How I feel".
 */
const HOW_I_DID =
  /^\s*how i (?:\w+ed|got|built|went|made|won|lost|paid|found|beat|broke|sold|bought|quit|left|ran|wrote|learnt|taught|spent|kept|became|did|drew|fought|grew|hit|held|met|put|set|shut|sent|stole|struck|swore|took|threw|wore|overcame|rebuilt)\b/i;

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
const LIST_TITLE =
  /^\s*(?:a |an |my |our |the )?(?:huge |big |massive |growing |curated |complete |small |short )?(?:collection|list|compilation|roundup) of\b/i;
const PRESENTS = /\b(?:here (?:are|is)|the following (?:is|are)|these are|below (?:is|are))\b/i;

export function isSharedTip(post: Post): boolean {
  if (LIST_TITLE.test(post.title) && PRESENTS.test(post.content.slice(0, 300))) return true;
  return TIP_TAG.test(post.title) || HOW_I_DID.test(post.title);
}
