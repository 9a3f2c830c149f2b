/**
 * What a FindLeads query asks for once its lead frame is gone. Sales users type the ask they
 * want to find ("looking for a project management tool", "need a payroll software", "can anyone
 * recommend a CRM"); every lead already is an ask, so the frame names nothing to tell leads
 * apart, yet searched as written it matched posts for their frame words: "Looking for a KVM
 * management tool for existing servers" came first for "looking for a project management tool",
 * and "looking for a crm" found 4 posts naming a CRM in its top 10 where "crm" found 10. Over 20
 * products asked four ways on the 92,912-post index (test/eval/lead-frame-queries.ts), the share
 * of the top 10 naming the product was 0.55 as "looking for a X", 0.63 as "need a X", 0.44 as "can
 * anyone recommend a X" and 0.72 as "X". FindLeads retrieves the subject; a query that is all
 * frame is used as written.
 *
 * A switch away from a named product ("alternative to mailchimp", "zendesk alternatives",
 * "switching from godaddy") is an ask's frame too: its frame words matched every "Alternatives
 * to ...?" post in the corpora, so "alternative to mailchimp" returned "Alternatives to Gmail?"
 * and "Alternatives to Ninite.com?" first. Over 20 named products asked five ways (the same
 * script), the share of the top 10 naming the product was 0.45 as "alternative to X", 0.38 as "X
 * alternatives", 0.52 as "replacement for X", 0.53 as "switching from X" and 0.81 as "X". The
 * leads a vendor of an alternative wants are the posts about X: its complaints, comparisons and
 * questions; FindLeads retrieves X.
 */

import { subjectAfterFrame } from "./query-subject.js";

const ARTICLE = "(?:(?:a|an|some|any|the|good|decent|great|reliable|affordable|cheap|free|new)\\s+)*";
const WHO = "(?:i|we|i'?m|we'?re|i am|we are|im)";

/** Frames that open an ask, each ending where its subject starts. */
const FRAMES: readonly RegExp[] = [
  // (I'm) looking for a / searching for some / shopping around for
  new RegExp(
    `^(?:${WHO}\\s+)?(?:currently\\s+)?(?:looking|searching|hunting|shopping)\\s+(?:around\\s+)?for\\s+${ARTICLE}`,
    "i",
  ),
  // (we) need a / want some / need help with / need help finding a / want to buy a / looking to hire
  new RegExp(
    `^(?:${WHO}\\s+)?(?:really\\s+)?(?:need|want|require)\\s+(?:to\\s+(?:buy|purchase|hire|find|get|order)\\s+|help\\s+(?:with|finding|choosing|picking)\\s+)?${ARTICLE}`,
    "i",
  ),
  new RegExp(`^(?:${WHO}\\s+)?looking\\s+to\\s+(?:buy|purchase|hire|find|get|order)\\s+${ARTICLE}`, "i"),
  // can anyone recommend a / could you suggest some
  new RegExp(
    `^(?:can|could|would)\\s+(?:anyone|anybody|someone|somebody|you)\\s+(?:please\\s+)?(?:recommend|suggest)\\s+${ARTICLE}`,
    "i",
  ),
  // recommendations for a / any suggestions on
  new RegExp(`^(?:any\\s+)?(?:recommendations?|suggestions?|recs)\\s+(?:for|on)\\s+${ARTICLE}`, "i"),
  // people looking for / who needs a / businesses asking for / customers in need of
  new RegExp(
    `^(?:who|people|users|customers|companies|businesses|founders|anyone|someone)\\s+(?:who\\s+)?(?:is\\s+|are\\s+)?(?:looking\\s+for|asking\\s+for|searching\\s+for|in\\s+need\\s+of|needs?|needing|wants?|wanting)\\s+${ARTICLE}`,
    "i",
  ),
  // what is the best / which is a good
  /^(?:what|which)(?:'s|\s+is|\s+are)\s+(?:the\s+)?(?:best|good|recommended)\s+/i,
];

/** Frames of a switch away from what follows them (after any ask frame is gone). */
const SWITCH_FRAMES: readonly RegExp[] = [
  // alternatives to / a cheaper replacement for / substitute for / competitors of
  new RegExp(
    `^${ARTICLE}(?:(?:cheaper|better|simpler|easier|faster|lighter|open[- ]source|self[- ]hosted)\\s+)*(?:alternatives?|replacements?|substitutes?|competitors?)\\s+(?:to|for|of)\\s+`,
    "i",
  ),
  // switching from / moving away from / migrating off / replace / ditching. Not "leave": "leave
  // management software" is about time off.
  new RegExp(
    `^(?:${WHO}\\s+)?(?:(?:switch|switching|move|moving|migrate|migrating)\\s+(?:away\\s+)?(?:from|off(?:\\s+of)?)|replace|replacing|ditch|ditching)\\s+`,
    "i",
  ),
];

/**
 * "X alternatives", "X replacement": the switch frame after its subject. Not "competitors" here:
 * "our competitors" would leave "our".
 */
const SWITCH_SUFFIX = /^(.*?[\p{L}\p{N}].*?)\s+(?:alternatives?|replacements?|substitutes?)[?.!]*$/iu;

/** The subject of `query` when it opens with an ask's frame or names a switch; otherwise `query` itself. */
export function leadQuerySubject(query: string): string {
  const ask = subjectAfterFrame(query, FRAMES);
  const switched = subjectAfterFrame(ask, SWITCH_FRAMES);
  if (switched !== ask) return switched;
  return SWITCH_SUFFIX.exec(ask.trim().replace(/\s+/g, " "))?.[1] ?? ask;
}
