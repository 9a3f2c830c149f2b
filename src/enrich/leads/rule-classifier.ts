/**
 * The rule reading of a post: intent cues (signals.ts) pick a lead type, the known false
 * positives (false-positives.ts) veto it, and the lead fields are filled from the sentence that
 * carries the intent. Rules plus two small heads over the post's embedding (heads.ts), no network.
 * Ingest no longer decides with it alone: the lead model (classifier.ts) reads its votes as
 * features and keeps its job-post and self-promotion vetoes; it stays the baseline of the
 * evaluation and the source of the extracted fields.
 *
 * Decision, in order:
 *   1. job post, self-promotion whose only asks are for attention ("what do you think?") or
 *      feature requests (about the poster's own product), news link, already resolved -> not a
 *      lead;
 *   2. the intent with the highest strength * TYPE_PRIORITY wins if its strength >= MIN_STRENGTH
 *      (in self-promotion, among the asks that are neither);
 *   3. pain about nothing a vendor could fix -> the strongest ask if there is one, else venting
 *      (not a lead).
 * A pain point is also strengthened by the post's tone: the sentiment model's P(negative) and its
 * frustration head when the caller passes the sentiment, else VADER's compound of the pain sentence.
 * When the caller passes the post's vector, the complaint head moves the pain strength and the
 * suggestion head the solution-request strength (COMPLAINT_PULL, SUGGESTION_PULL).
 */
import type { Enrichment, Post } from "../../model/post.js";
import type { SentimentResult } from "../sentiment/classifier.js";
import { vaderScores } from "../sentiment/vader.js";
import {
  type Disqualifier,
  isJobPost,
  isNewsLink,
  isOfferToReaders,
  isPromotionalAsk,
  isResolved,
  isSelfPromotion,
  isSharedTip,
  isStoryForumPost,
  isVenting,
} from "./false-positives.js";
import { headProbability } from "./heads.js";
import { type Industry, inferIndustry } from "./industry.js";
import { opportunityFor } from "./opportunity.js";
import { findTargetProduct } from "./product.js";
import { leadScore } from "./score.js";
import { type Intent, type IntentMatch, type MatchLimits, matchIntents } from "./signals.js";
import { clip, type Sentence, type SentenceView, sentencesOf, sentenceView } from "./text.js";

/** The lead fields of {@link Enrichment}. */
export type LeadFields = Pick<
  Enrichment,
  "leadType" | "leadScore" | "painPoint" | "opportunity" | "industry" | "targetProduct"
>;

/** A classification with the reason a post was rejected, for tests and evaluation. */
export interface LeadDecision extends LeadFields {
  /** Set when intent cues were present but a false-positive rule vetoed the lead. */
  rejectedAs: Disqualifier | "";
  /** The sentence that carried the chosen intent ("" when not a lead). */
  evidence: string;
}

/** What the rules saw in a post besides their decision: the lead model's features and the fields' sources. */
export interface RuleDetail {
  industry: Industry;
  /** Every intent's match after tone and heads (before any self-promotion limits). */
  matches: Record<Intent, IntentMatch>;
  sentences: readonly Sentence[];
  view: SentenceView | undefined;
  heads: PostHeads;
  /** The vetoes' own tests, run on every post (not only on posts with a cue). */
  jobPost: boolean;
  selfPromotion: boolean;
  offerToReaders: boolean;
}

/** A rule decision with what the rules saw. */
export interface RuleReading extends LeadDecision {
  detail: RuleDetail;
}

/** Classifies one post; see the module header for the decision. */
export interface LeadClassifier {
  /**
   * `vector` (the post's USE-lite embedding), when given, lets the suggestion and complaint heads
   * confirm or doubt a solution request or a pain point (see {@link SUGGESTION_PULL},
   * {@link COMPLAINT_PULL}); `sentiment`, when the caller has it, sharpens pain-point detection.
   * Without either the rules decide alone.
   */
  classify(post: Post, vector?: Float32Array, sentiment?: SentimentResult): LeadDecision;
}

/** Below this, no cue is trusted on its own. */
export const MIN_STRENGTH = 0.45;

/**
 * P(frustration) from which a post's tone alone counts as a pain point. Chosen on posts written by
 * hand for the project (seeds/complaint-dev.tsv; sweep in docs/EVALUATION.md): 0.15 to 0.25 tie
 * on F1 there, and the highest of them is taken, since a pain point inferred from tone alone
 * should lean conservative on forum posts. No labelled evaluation set took part.
 */
export const FRUSTRATION_MIN = 0.25;

/**
 * How far the suggestion head (heads.ts) moves the solution-request strength found by the
 * cues: strength + SUGGESTION_PULL * (P(suggestion) - 0.5). A cue such as "should" or "please"
 * in a sentence that means no ask drops below {@link MIN_STRENGTH}; a weak cue in a clear ask
 * rises. Chosen on the hand-written development sentences (seeds/suggestion-dev.tsv).
 *
 * The head never makes a request on its own: read on unlabelled reddit sentences, its confident
 * calls without any cue were mostly questions asking for advice or plain statements (it learnt
 * from 227 short seeds and is over-confident), so it only weighs cues the rules found.
 */
export const SUGGESTION_PULL = 0.6;

/**
 * The complaint head (heads.ts) does for pain points what the suggestion head does for requests:
 * strength + COMPLAINT_PULL * (P(complaint) - 0.5) once a cue or the tone found pain, and a post
 * with P(complaint) >= COMPLAINT_ALONE is a pain point even when neither did. Chosen on the
 * hand-written development posts (seeds/complaint-dev.tsv), apart from the head's training seeds.
 */
export const COMPLAINT_PULL = 0.4;
export const COMPLAINT_ALONE = 0.9;

/** Sentences VADER reads when looking for the most negative one. */
const TONE_SENTENCES = 6;

/** The most negative of the first sentences by VADER compound (the first on ties), with its compound. */
function mostNegative(sentences: readonly Sentence[]): { sentence: Sentence; compound: number } | undefined {
  let best: Sentence | undefined;
  let low = Infinity;
  for (const s of sentences.slice(0, TONE_SENTENCES)) {
    const c = vaderScores(s.text).compound;
    if (c < low) {
      low = c;
      best = s;
    }
  }
  return best && { sentence: best, compound: low };
}

/**
 * Whether the complaint head may make a pain point on its own (no cue, no frustrated tone) of a
 * post whose most negative sentence is `quoted`. Not when that sentence is a question with no
 * negative word in it: such a post asks (how to return an order, whether a card fits a TV)
 * rather than states a problem, and the head, trained on 120 short hand-written posts, reads
 * almost any message to a vendor as a complaint. What a question asks is typed by the cues.
 * Found by reading the false positives of the complaints tweets' development half (even ids):
 * the rule takes 53 posts out of its pain points there, 39 of them not complaints.
 */
function headMayStateAlone(quoted: { sentence: Sentence; compound: number }): boolean {
  return !(quoted.sentence.text.trimEnd().endsWith("?") && quoted.compound >= 0);
}

/**
 * Whether the pain sentence is worth showing beside a lead of `type`. Not a title that no pain cue
 * matched and whose tone is not negative, when the lead is an ask: the tone or the complaint head
 * picked the post's headline ("CRM with Customer Portal", "Peer to peer marketplace payments"),
 * which names the topic and states no problem. A pain_point lead keeps it: there the headline is
 * the problem as told ("So my phone fell off the roof of my friend's car at 70 mph"), and reading
 * it away lost real leads (95 over the corpora when the head was kept from quoting such titles).
 */
function statesProblem(type: Intent, pain: IntentMatch): boolean {
  const s = pain.sentence;
  return type === "pain_point" || s === undefined || !s.inTitle || pain.cues > 0 || vaderScores(s.text).compound < 0;
}

/** Tie-breaking between intents present in one post: closer to a sale first. */
const TYPE_PRIORITY: Record<Intent, number> = {
  buying_intent: 1,
  comparison: 0.98,
  solution_request: 0.95,
  advice_request: 0.8,
  pain_point: 0.78,
};

const ASKS: readonly Intent[] = ["buying_intent", "comparison", "solution_request", "advice_request"];
const PAIN_SENTENCE_MAX = 300;

/** The fields a lead of `type` gets from the rules' matches: its target, pain sentence, opportunity and evidence. */
export function leadFieldsFor(
  type: Intent,
  m: Record<Intent, IntentMatch>,
  sentences: readonly Sentence[],
  view: SentenceView,
  industry: Industry,
): Pick<LeadDecision, "painPoint" | "opportunity" | "targetProduct" | "evidence"> {
  const match = m[type];
  const target = findTargetProduct(sentences, match.sentence, view);
  const pain = m.pain_point;
  const painPoint =
    pain.strength >= MIN_STRENGTH && pain.sentence && statesProblem(type, pain)
      ? clip(pain.sentence.text, PAIN_SENTENCE_MAX)
      : "";
  return {
    painPoint,
    opportunity: opportunityFor(type, target, industry),
    targetProduct: target.name,
    evidence: match.sentence?.text ?? "",
  };
}

/** Every intent unmatched. */
function emptyMatches(): Record<Intent, IntentMatch> {
  const none = (): IntentMatch => ({ strength: 0, cues: 0, sentence: undefined, fired: [] });
  return {
    buying_intent: none(),
    comparison: none(),
    solution_request: none(),
    advice_request: none(),
    pain_point: none(),
  };
}

/** The decision for a post that is not a lead, with the reason a rule gave ("" for none). */
export function notLead(industry: string, rejectedAs: Disqualifier | ""): LeadDecision {
  return {
    leadType: "",
    leadScore: 0,
    painPoint: "",
    opportunity: "",
    industry,
    targetProduct: "",
    rejectedAs,
    evidence: "",
  };
}

/** The heads' probabilities for one post (undefined without its vector). */
export interface PostHeads {
  complaint: number | undefined;
  suggestion: number | undefined;
}

/** Options of {@link createLeadClassifier}; the defaults are the documented ones. */
export interface LeadClassifierOptions {
  /** See {@link FRUSTRATION_MIN}; the evaluation sweeps it to show how it was chosen. */
  frustrationMin?: number;
  /** See {@link SUGGESTION_PULL}; 0 turns the head off for cue-matched posts. */
  suggestionPull?: number;
  /** See {@link COMPLAINT_PULL}; 0 turns the head off for pain found otherwise. */
  complaintPull?: number;
  /** See {@link COMPLAINT_ALONE}; above 1 turns it off. */
  complaintAlone?: number;
}

/** The rule classifier; `read` gives the decision with what the rules saw. */
export interface RuleLeadClassifier extends LeadClassifier {
  read(post: Post, vector?: Float32Array, sentiment?: SentimentResult): RuleReading;
}

/** Builds the rule-based lead classifier. */
export function createRuleLeadClassifier(options: LeadClassifierOptions = {}): RuleLeadClassifier {
  const frustrationMin = options.frustrationMin ?? FRUSTRATION_MIN;
  const suggestionPull = options.suggestionPull ?? SUGGESTION_PULL;
  const complaintPull = options.complaintPull ?? COMPLAINT_PULL;
  const complaintAlone = options.complaintAlone ?? COMPLAINT_ALONE;
  /**
   * Every intent's strength: the cues (within `limits`), then the tone and the heads. The head
   * probabilities are computed once per post whatever the limits (`heads` carries them over).
   */
  const intentsOf = (
    sentences: readonly Sentence[],
    view: SentenceView,
    heads: PostHeads,
    sentiment: SentimentResult | undefined,
    limits?: MatchLimits,
  ) => {
    const m = matchIntents(sentences, view, limits);

    // Tone lifts pain: P(negative) from the sentiment model when given, else VADER on the pain
    // sentence. A frustrated tone (the model's frustration head) is pain on its own, stated in
    // the post's most negative sentence when no cue names it.
    const pain = m.pain_point;
    if (sentiment) {
      pain.strength = pain.sentence ? Math.min(1, pain.strength + 0.2 * sentiment.probabilities.negative) : 0;
      if (sentiment.frustration >= frustrationMin) {
        pain.strength = Math.max(pain.strength, Math.min(1, MIN_STRENGTH + 0.3 * sentiment.frustration));
        pain.sentence ??= mostNegative(sentences)?.sentence;
      }
    } else if (pain.sentence) {
      pain.strength = Math.min(1, pain.strength + 0.2 * Math.max(0, -vaderScores(pain.sentence.text).compound));
    }
    const complaint = heads.complaint;
    if (complaint !== undefined) {
      if (pain.strength > 0) {
        pain.strength = Math.max(0, Math.min(1, pain.strength + complaintPull * (complaint - 0.5)));
      } else if (complaint >= complaintAlone) {
        const quoted = mostNegative(sentences);
        if (quoted && headMayStateAlone(quoted)) {
          pain.strength = Math.min(1, MIN_STRENGTH + (complaint - complaintAlone));
          pain.sentence = quoted.sentence;
        }
      }
    }

    // The suggestion head judges what the post means; the cues only saw its wording.
    const suggestion = heads.suggestion;
    const request = m.solution_request;
    if (suggestion !== undefined && request.strength > 0) {
      request.strength = Math.max(0, Math.min(1, request.strength + suggestionPull * (suggestion - 0.5)));
    }
    return m;
  };
  const asksOf = (m: Record<Intent, IntentMatch>) => ASKS.filter((t) => m[t].strength >= MIN_STRENGTH);

  const read = (post: Post, vector?: Float32Array, sentiment?: SentimentResult): RuleReading => {
    const industry = inferIndustry(post.subforum, `${post.title}\n${post.content}`);
    const sentences = sentencesOf(post);
    const heads: PostHeads = {
      complaint: headProbability("complaint", vector),
      suggestion: headProbability("suggestion", vector),
    };
    const detail: RuleDetail = {
      industry,
      matches: emptyMatches(),
      sentences,
      view: undefined,
      heads,
      jobPost: isJobPost(post),
      selfPromotion: false,
      offerToReaders: isOfferToReaders(post),
    };
    const with_ = (d: LeadDecision): RuleReading => ({ ...d, detail });
    if (isStoryForumPost(post)) return with_(notLead(industry, "story"));
    // Built once: the cue and product rules both ask it which patterns can match in the post.
    const view = sentenceView(sentences);
    detail.view = view;
    const m = intentsOf(sentences, view, heads, sentiment);
    detail.matches = m;
    const promo = isSelfPromotion(post, sentences);
    detail.selfPromotion = promo;
    return with_(decide(post, industry, sentences, view, heads, sentiment, m, promo, detail.jobPost));
  };

  const decide = (
    post: Post,
    industry: Industry,
    sentences: readonly Sentence[],
    view: SentenceView,
    heads: PostHeads,
    sentiment: SentimentResult | undefined,
    all: Record<Intent, IntentMatch>,
    promo: boolean,
    jobPost: boolean,
  ): LeadDecision => {
    let m = all;
    let asks = asksOf(m);
    const anyCue = asks.length > 0 || m.pain_point.strength >= MIN_STRENGTH;
    if (!anyCue) return notLead(industry, "");

    if (jobPost) return notLead(industry, "job_post");
    // Self-promotion is about the poster's own product: its calls for attention ("check it out",
    // "feedback welcome") and what it says that product should do ("the next build should fix
    // ...", "it would be nice to hear...") ask nobody for anything. It stays a lead only for an
    // ask of another kind, and that ask is what the lead is.
    if (promo) {
      m = intentsOf(sentences, view, heads, sentiment, {
        noFeatureRequests: true,
        skip: (s) => isPromotionalAsk(s.text),
      });
      asks = asksOf(m);
      if (asks.length === 0) return notLead(industry, "self_promotion");
    }
    const lastAsk = Math.max(-1, ...asks.map((t) => m[t].sentence?.index ?? -1));
    if (isNewsLink(post)) return notLead(industry, "news_link");
    if (isResolved(post, sentences, lastAsk)) return notLead(industry, "resolved");
    // A shared how-to or tip is a lead only for a question it puts to its readers.
    if (isSharedTip(post) && !asks.some((t) => m[t].sentence?.text.trimEnd().endsWith("?")))
      return notLead(industry, "shared_tip");

    let type: Intent | undefined;
    let best = 0;
    for (const t of Object.keys(TYPE_PRIORITY) as Intent[]) {
      const s = m[t].strength;
      if (s >= MIN_STRENGTH && s * TYPE_PRIORITY[t] > best) {
        best = s * TYPE_PRIORITY[t];
        type = t;
      }
    }
    if (!type) return notLead(industry, "");
    if (type === "pain_point" && isVenting(sentences)) {
      // Nothing a vendor could fix: an ask, if any, is what the post is; otherwise it is venting.
      const ask = asks.reduce<Intent | undefined>(
        (a, t) => (a && m[a].strength * TYPE_PRIORITY[a] >= m[t].strength * TYPE_PRIORITY[t] ? a : t),
        undefined,
      );
      if (!ask) return notLead(industry, "venting");
      type = ask;
    }

    const match: IntentMatch = m[type];
    return {
      leadType: type,
      leadScore: leadScore({
        type,
        strength: match.strength,
        text: sentences.map((s) => s.text).join(" "),
        upvotes: post.upvotes,
        comments: post.comments,
        selfPromotion: promo,
      }),
      ...leadFieldsFor(type, m, sentences, view, industry),
      industry,
      rejectedAs: "",
    };
  };

  return {
    read,
    classify: (post, vector, sentiment) => {
      const { detail: _, ...decision } = read(post, vector, sentiment);
      return decision;
    },
  };
}
