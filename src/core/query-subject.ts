/**
 * The subject of a question about opinion. "What are people saying about PadMapper?" asks what is
 * said about PadMapper; its frame ("what are people saying about", "opinions on", "thoughts on")
 * names no topic, yet searched as written it matched posts for their frame words: "Opinions on
 * Grant Thornton?" and "Thoughts on this site?" came back for PadMapper, and "It's Okay to Not
 * Have an Opinion About Everything" was quoted in the summaries of 89 of 256 "opinions on ..."
 * questions over the three corpora. SemanticSearch retrieves and summarises the subject;
 * a query with no such frame, or nothing after it, is used as written.
 */

const WHO =
  "(?:people|users|customers|folks|developers|devs|founders|entrepreneurs|redditors|others|everyone|everybody|the (?:community|internet|users|market))";
const SAY = "(?:saying|say|said|thinking|think|feel|feeling|talking|writing|posting)";
const ABOUT = "(?:about|of|on|regarding|towards?|around)";
// Not "views" alone: "views on my blog dropped" counts page views.
const OPINION = "(?:opinions?|thoughts|impressions|sentiment|feedback|reviews?|experiences?|consensus)";

/** Frames that open a question about opinion, each ending where the subject starts. */
const FRAMES: readonly RegExp[] = [
  // what are people saying about / what do users think of / how do people feel about
  new RegExp(
    `^(?:so,? )?(?:what|how) (?:are|do|did|does|were|is) ${WHO} (?:really |generally |currently )?${SAY} ${ABOUT} `,
    "i",
  ),
  // what's the (general) opinion on / what is the sentiment around
  new RegExp(
    `^what(?:'s| is| are) (?:the |people's |peoples )?(?:general |overall |public |current )?(?:${OPINION}|views) ${ABOUT} `,
    "i",
  ),
  // what do you (guys) think of / how do you feel about
  new RegExp(`^(?:what|how) do you (?:guys |all )?(?:think|feel) ${ABOUT} `, "i"),
  // opinions on / any thoughts about / honest reviews of / experiences with
  new RegExp(`^(?:any |your |general |honest |public |people's |peoples )?${OPINION} (?:${ABOUT}|with) `, "i"),
];

/** The subject of `query` when it opens with an opinion frame; otherwise `query` itself. */
export function querySubject(query: string): string {
  return subjectAfterFrame(query, FRAMES);
}

/**
 * What follows the first of `frames` (anchored patterns) that opens `query`, without closing
 * punctuation; `query` itself when none does or nothing but punctuation follows. Shared with
 * FindLeads' ask frames (lead-query.ts).
 */
export function subjectAfterFrame(query: string, frames: readonly RegExp[]): string {
  const text = query.trim().replace(/\s+/g, " ");
  for (const frame of frames) {
    const m = frame.exec(text);
    if (!m) continue;
    const subject = text
      .slice(m[0].length)
      .replace(/[?.!]+$/, "")
      .trim();
    if (/[\p{L}\p{N}]/u.test(subject)) return subject;
  }
  return query;
}
