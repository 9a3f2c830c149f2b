/**
 * Intent cues per lead type, matched sentence by sentence: the labelling functions that vote for
 * a lead type (src/enrich/leads/functions/). Each cue has a weight 0..1 (how surely it signals
 * that intent on its own); a type's strength is its best cue, a bit higher in the title and when
 * several distinct cues agree. The patterns were written from the phrasing of asks in the reddit
 * and Stack Exchange corpora (public domain / CC BY-SA), not learned.
 */
import type { LeadType } from "../../model/post.js";
import { type LabellingFunction, labellingFunctions } from "./labelling-functions.js";
import { compileLiterals } from "./literals.js";
import { type Sentence, type SentenceView, sentenceView } from "./text.js";

/** A lead type that is not "". */
export type Intent = Exclude<LeadType, "">;

/** A cue: a labelling function that votes for an intent (labelling-functions.ts). */
export type Cue = LabellingFunction & { votes: Intent };

const INTENTS: readonly Intent[] = ["buying_intent", "comparison", "solution_request", "advice_request", "pain_point"];

/** Cues per intent, from the function files. Order does not matter; every matching cue counts. */
export const CUES: Record<Intent, readonly Cue[]> = Object.fromEntries(
  INTENTS.map((t) => [t, [...labellingFunctions().values()].filter((f): f is Cue => f.votes === t)]),
) as unknown as Record<Intent, readonly Cue[]>;

/** How strongly each intent shows in a post, and where. */
export interface IntentMatch {
  /** 0..1 */
  strength: number;
  /** Distinct cues that matched anywhere. */
  cues: number;
  /** The sentence holding the strongest cue. */
  sentence: Sentence | undefined;
  /** Names of the cues that matched (labelling-functions.ts), the votes the label model reads. */
  fired: string[];
}

/** Title cues count fully; body cues slightly less (a title states the post's purpose). */
const BODY_FACTOR = 0.9;

/**
 * Before a cue runs, its literals (literals.ts) must be able to occur in the post: a few bit reads
 * in the post's trigram table rule out most cues far faster than the regex engine does. A cue that
 * passes is tested once more with the multiline flag over all sentences (joined by newlines)
 * before sentence by sentence, as most that pass still match nowhere.
 */
const PREFILTER = new Map<RegExp, { literals: ReturnType<typeof compileLiterals>; joined: RegExp }>(
  Object.values(CUES).flatMap((cues) =>
    cues.map((c) => [c.re, { literals: compileLiterals(c.re), joined: new RegExp(c.re.source, "im") }] as const),
  ),
);

/** What {@link matchIntents} leaves out, for a post whose own sentences are not all asks. */
export interface MatchLimits {
  /** Feature-request cues (`Cue.feature`) count for nothing. */
  noFeatureRequests?: boolean;
  /** Sentences no cue is read in. */
  skip?: (s: Sentence) => boolean;
}

/** Strength of every intent over the sentences (`view`: theirs, when the caller has it). */
export function matchIntents(
  sentences: readonly Sentence[],
  view: SentenceView = sentenceView(sentences),
  limits: MatchLimits = {},
): Record<Intent, IntentMatch> {
  const out = {} as Record<Intent, IntentMatch>;
  const { joined, grams } = view;
  const read = limits.skip ? sentences.filter((s) => !limits.skip!(s)) : sentences;
  for (const intent of INTENTS) {
    let best = 0;
    let where: Sentence | undefined;
    const fired: string[] = [];
    const cues = CUES[intent];
    for (let ci = 0; ci < cues.length; ci++) {
      const cue = cues[ci]!;
      if (limits.noFeatureRequests === true && cue.feature === true) continue;
      const pre = PREFILTER.get(cue.re)!;
      if (!grams.mayMatch(pre.literals) || !pre.joined.test(joined)) continue;
      let hit = false;
      for (const s of read) {
        if ((cue.titleOnly === true && !s.inTitle) || !cue.re.test(s.text)) continue;
        hit = true;
        const w = cue.weight * (s.inTitle ? 1 : BODY_FACTOR);
        // Equal weights go to the earlier sentence, so the order of the function files does not matter.
        if (w > best || (w === best && where !== undefined && s.index < where.index)) {
          best = w;
          where = s;
        }
      }
      if (hit) fired.push(cue.name);
    }
    const agreement = Math.min(0.15, 0.05 * Math.max(0, fired.length - 1));
    out[intent] = {
      strength: best === 0 ? 0 : Math.min(1, best + agreement),
      cues: fired.length,
      sentence: where,
      fired,
    };
  }
  return out;
}
