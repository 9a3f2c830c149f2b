/**
 * Intent cues per lead type, matched sentence by sentence. Each cue has a weight 0..1 (how surely
 * it signals that intent on its own); a type's strength is its best cue, a bit higher in the
 * title and when several distinct cues agree. The patterns were written from the phrasing of
 * asks in the reddit and Stack Exchange corpora (public domain / CC BY-SA), not learned.
 */
import type { LeadType } from "../../model/post.js";
import { compileLiterals } from "./literals.js";
import { type Sentence, type SentenceView, sentenceView } from "./text.js";

/** A lead type that is not "". */
export type Intent = Exclude<LeadType, "">;

interface Cue {
  re: RegExp;
  weight: number;
  /** Only a title may carry this cue (in a body it is too common to mean intent). */
  titleOnly?: boolean;
  /**
   * A feature request: what a product should do or have ("it would be nice if", "please add").
   * In a post promoting the poster's own product it speaks of that product, so it asks nobody.
   */
  feature?: boolean;
}

const THING =
  "(?:tool|app|application|software|service|program|plugin|extension|platform|website|site|solution|library|product|company|provider|vendor|host|hosting|system|crm|framework|api|template|theme|agency|firm|consultant)s?";

/** Cues per intent. Order does not matter; every matching cue counts. */
export const CUES: Record<Intent, readonly Cue[]> = {
  buying_intent: [
    // "I was about to buy ..." tells a story; "I'm about to buy ..." is the intent.
    {
      re: /(?:^|\b(?:i|we|i'm|we're|im|i am|we are|i've been|we've been)(?: \w+){0,2} )(?:looking|want|wanting|planning|ready|going|(?<!\b(?:was|were) (?:just )?)about|trying|need|hoping) to (?:buy|purchase|order|pre-?order|subscribe to|invest in|outsource|get a quote)\b/i,
      weight: 0.9,
    },
    {
      re: /(?:^|\b(?:i|we|i'm|we're|im|i am|we are)(?: \w+){0,2} )(?:looking|want|wanting|planning|ready|need|hoping) to hire (?:a|an|someone|somebody)\b/i,
      weight: 0.7,
    },
    // The poster's readiness to pay for something: not what others would pay ("what are they willing
    // to pay for this urgent need?": an employer's salary; "almost everyone is willing to pay with a
    // credit card": a freelancer's clients), nor paying what is owed ("willing to pay tax in all
    // countries", "able to pay off my loans"), nor how one pays ("pay with a card", "pay by cheque").
    // A contraction is the same person: "people want his product and they're willing to pay for it".
    {
      re: /(?<!\b(?:they|he|she|customers?|people|clients?|users?|investors?|employers?|companies|buyers?|everyone|everybody|anyone|anybody|nobody|no one|someone|somebody|most|many|few|who)(?: (?:are|is|were|was|be)|'re|'s)?(?: not| still| also| only| really| just)? )\b(?:willing|happy|able|prepared) to (?:pay|spend)\b(?! (?:off|back|down|taxes|tax|rent|bills?|interest|with|by|via|using|in cash|my (?:loans?|debts?|mortgage|bills?|rent|taxes))\b)|\bi'?(?:ll| will) (?:gladly )?pay\b(?! (?:off|back|down|taxes|tax|rent|bills?|interest)\b)/i,
      weight: 0.9,
    },
    {
      re: /\bbudget (?:is |of |around |about |between |under |~)?(?:\$|£|€|usd ?)?\d|\$\s?\d[\d,.]*k? budget\b/i,
      weight: 0.75,
    },
    { re: /\bwhere (?:can|do|should|could) (?:i|we) (?:buy|purchase|order|get)\b/i, weight: 0.85 },
    // The poster's own plan ("I'm going to buy a...", "need to get a new..."), not "it was going to get this many views".
    // Nor what nobody sells: "I need to get a job", "should I get a degree", "Get a job as ..." (read among buying-intent answers).
    {
      re: /(?:^|\b(?:i|we|i'm|we're|im|i am|we are|i'll|we'll)(?: \w+){0,2} )(?:want|wanna|gonna|going|need) (?:to )?(?:buy|get) (?:a |an |the |that |this |some |my |new )(?!(?:job|jobs|raise|promotion|degree|visa|grip|life|clue|chance|response|reply|feel|sense|girlfriend|boyfriend|internship|interview|position|mentor)\b)/i,
      weight: 0.65,
    },
    {
      re: /\bshould (?:i|we) (?:buy|purchase|get|order|upgrade)\b(?! (?:a |an |my |the )?(?:job|jobs|raise|promotion|degree|visa|internship|interview|position|mentor)\b)/i,
      weight: 0.8,
    },
    { re: /\b(?:quote|quotes|pricing|price) (?:for|on)\b.*\?/i, weight: 0.6 },
    {
      re: /^(?:buy|order|get) (?:a|an|the|my|new|me)\b(?! (?:job|jobs|raise|promotion|degree|visa|life|clue|grip|internship|interview|position|mentor)\b)/i,
      weight: 0.55,
    },
    { re: /\b(?:wtb|want to buy)\b/i, weight: 0.95 },
  ],
  comparison: [
    { re: /\balternatives? (?:to|for)\b|\b(?:replacement|substitute) for\b/i, weight: 0.95 },
    { re: /\b[\w.+#-]+ (?:vs\.?|versus) [\w.+#-]+/i, weight: 0.85, titleOnly: true },
    { re: /\b[\w.+#-]+ (?:vs\.?|versus) [\w.+#-]+.*\?/i, weight: 0.85 },
    { re: /\b(?:switch|switching|migrate|migrating|moving|move) (?:away )?from\b/i, weight: 0.8 },
    // The poster seeking a new one of what they have: "we will be finding a new host" (after an
    // outage), "we need to find a new accountant"; not a habit ("when I find a new tool I like")
    // nor a hypothesis ("by just moving to a new framework").
    {
      re: new RegExp(
        `\\b(?:i|we)(?:'m|'re|'ll| am| are| will| need to| have to| want to| plan to| must| should)(?: (?:be|now|probably|definitely|need to|have to|going to|gonna|currently|just|already|actively|seriously))* (?:find|finding|look for|looking for|search for|searching for|shop for|shopping for|switch to|switching to|move to|moving to)(?: a| an| some)? new (?:[\\w-]+ )?(?:${THING}|banks?|carriers?|suppliers?|accountants?|isps?|registrars?)\\b`,
        "i",
      ),
      weight: 0.8,
    },
    { re: /\bwhich (?:one )?is (?:better|best|cheaper|faster|easier)\b|\bdifference between\b.*\?/i, weight: 0.8 },
    { re: /\b(?:compared? (?:to|with)|better than|cheaper than)\b.*\?/i, weight: 0.65 },
    { re: /\bpros and cons\b/i, weight: 0.6 },
  ],
  solution_request: [
    {
      re: /\b(?:looking|searching|hunting|shopping) (?:around )?for (?:a|an|some|any|the best|good|something|anything|recommendations?|suggestions?)\b/i,
      weight: 0.85,
    },
    // With no article: "looking for CRM options", "searching for invoicing software".
    {
      re: new RegExp(
        `\\b(?:looking|searching|hunting|shopping) (?:around )?for (?!the |my |our |his |her |their |your |its )(?:(?!on |to |for |in |of |about |from |with |at )[\\w-]+ ){0,3}(?:options|choices|${THING})\\b`,
        "i",
      ),
      weight: 0.85,
    },
    {
      re: /\b(?:can|could|would) (?:anyone|anybody|someone|somebody|you(?: guys)?) (?:please )?(?:recommend|suggest|point me)\b/i,
      weight: 0.95,
    },
    {
      re: new RegExp(
        `\\b(?:any|some|need|want|welcome|looking for) (?:good )?(?:recommendations?|suggestions?|recs) (?:for|on) (?:[\\w-]+ ){0,4}${THING}\\b`,
        "i",
      ),
      weight: 0.9,
    },
    { re: new RegExp(`\\bis there (?:a |an |any |some )?(?:[\\w-]+ ){0,4}${THING}\\b`, "i"), weight: 0.85 },
    // "anyone know a tool that...", "do you know any service...": asking others for a product.
    {
      re: new RegExp(
        `\\b(?:anyone|anybody|you guys|do you|does anyone) (?:know|knows|have|has|got) (?:of )?(?:a |an |any |some |good )?(?:[\\w-]+ ){0,3}${THING}\\b`,
        "i",
      ),
      weight: 0.85,
    },
    {
      re: new RegExp(
        `^(?:any )?(?:good )?(?:suggestions?|recommendations?|recs) (?:for|on) (?:a |an |some |good )?(?:[\\w-]+ ){0,3}${THING}\\b`,
        "i",
      ),
      weight: 0.85,
    },
    { re: new RegExp(`\\bany (?:good |helpful |useful |free |cheap |decent )?${THING}\\b.*\\?`, "i"), weight: 0.75 },
    {
      re: /\b(?:advice|help|suggestions?|tips) (?:on|with|for) (?:choosing|picking|finding|selecting)\b/i,
      weight: 0.85,
    },
    {
      re: new RegExp(
        `\\bwhat (?:[\\w-]+ ){0,2}${THING} (?:do|does|would|should) (?:[\\w-]+ ){0,3}(?:use|go with|recommend|pick|choose)\\b`,
        "i",
      ),
      weight: 0.8,
    },
    { re: /\bis there (?:a|an|any) (?:easy |simple |better |good |quick |cheap )?way to\b/i, weight: 0.75 },
    { re: /\bdoes (?:anyone|anybody) (?:know|have) (?:of |a |an |any |where |what |good )/i, weight: 0.8 },
    {
      re: new RegExp(`\\bwhat (?:[\\w-]+ ){0,2}${THING} (?:do|would|should|are|can) (?:you|i|we)\\b`, "i"),
      weight: 0.85,
    },
    { re: /\bwhat (?:do|would) you (?:guys )?(?:use|recommend|suggest)\b|\bwhat are you using\b/i, weight: 0.85 },
    {
      re: new RegExp(
        `\\bwhat(?:'s| is| are) (?:the |a |some )?(?:best|good|decent|cheapest|easiest|recommended)(?: [\\w-]+){0,4} ${THING}\\b`,
        "i",
      ),
      weight: 0.9,
    },
    { re: new RegExp(`\\b(?:need|want|require) (?:a|an|some) (?:[\\w-]+ ){0,3}${THING}\\b`, "i"), weight: 0.7 },
    {
      re: /\bwhich (?:[\w-]+ ){0,2}(?:should i|should we|would you|do you) (?:use|recommend|choose|go with|pick)\b/i,
      weight: 0.85,
    },
    { re: /\brecommend(?:ation)?s? (?:for|on) (?:a|an|some|good|the best)\b/i, weight: 0.85 },
    // Feature requests: the poster asks a vendor for a capability.
    {
      re: /\b(?:it )?(?:would|'d) be (?:really |very |so |much )?(?:nice|nicer|great|good|awesome|helpful|useful|cool|cooler|better|ideal|easier|handy|handier|convenient) (?:if|to)\b/i,
      weight: 0.8,
      feature: true,
    },
    // Question-form asks to a vendor: "would it be possible to...", "can we get an option...".
    {
      re: /\b(?:would|will|is) it be possible to\b|\bcan (?:we|i|you) (?:please )?(?:get|have) (?:a|an|the|some|more)\b|\bwouldn'?t it (?:make sense|be (?:nice|great|better|easier))\b|\bhow about (?:adding|letting|making|allowing|having|supporting|an option|a way)\b/i,
      weight: 0.75,
      feature: true,
    },
    {
      re: /\bcould (?:the|you|they|a|an) (?:[\w-]+ ){0,3}(?:add|include|support|allow|offer|provide|enable|get|have)\b/i,
      weight: 0.7,
      feature: true,
    },
    { re: /^(?:suggestion|idea|request|proposal|feature idea|wish)\s*[:-]/i, weight: 0.85, feature: true },
    {
      re: /\bhopefully (?:the next|a future|they|you|we|it|this|soon)\b|\bhoping for (?:a|an|some|more|the)\b/i,
      weight: 0.6,
      feature: true,
    },
    // A wished-for thing as the subject: "a search bar in the help center would save everyone time".
    {
      re: /^(?:maybe |perhaps )?(?:a|an|some|more|better|being able to|the ability to|having|adding|an option to|support for)\b.{0,80}\bwould (?:really |also |greatly |definitely )?(?:help|save|reduce|improve|make|keep|go a long way|be (?:a )?(?:big |huge |great |nice |real |welcome )?(?:improvement|plus|win|help))\b/i,
      weight: 0.7,
      feature: true,
    },
    // An implicit suggestion: the condition on which the poster would use, buy or switch.
    {
      re: /^if (?:only )?(?:the |it |you |they |this |there |a |an |we could |i could )?.{0,70}\b(?:i|we)(?:'d| would) (?:\w+ )?(?:use|buy|switch|upgrade|come back|subscribe|stay)\b/i,
      weight: 0.75,
      feature: true,
    },
    {
      re: /\b(?:please|pls|plz) (?:add|allow|make|provide|include|support|enable|consider|fix|let|bring|give|implement|improve|change|update|create|offer|remove|open|publish)\b/i,
      weight: 0.85,
      feature: true,
    },
    {
      re: /\bi wish (?:there|it|you|they|we|the|i could)\b|\bthere (?:should|needs to) be\b/i,
      weight: 0.75,
      feature: true,
    },
    {
      re: /\b(?:should|could|must|needs? to|ought to) (?:really |definitely |also |just |seriously |at least )?(?:add|allow|include|provide|support|offer|implement|enable|expose|have an option|be able to|list|remember|show|display)\b/i,
      weight: 0.6,
      feature: true,
    },
    {
      re: /^(?:(?:it|this|that|the app|there) )?should (?:also |really )?have (?:a|an|the|some|more|an option|support)\b/i,
      weight: 0.6,
      feature: true,
    },
    {
      re: /(?<!\b(?:i|you|we|he|she) )\b(?:should|must|ought to) (?:really |definitely |also |just |seriously )?(?!be (?:noted|back|fine|ok|okay|here|home|done|ready|there|delivered|arriving)\b)(?:be|get|make|let|give|consider|improve|fix|update|change|remove|release|bring|work|focus|invest|open|publish|start|stop|use|come|show|display|integrate|unify|ship)\b(?! been)/i,
      weight: 0.6,
      feature: true,
    },
    {
      re: /\b(?:i|we) (?:would )?(?:suggest|recommend|propose|request)\b|\bmy suggestion\b|\bfeature request\b/i,
      weight: 0.8,
      feature: true,
    },
    {
      re: /\bconsider (?:adding|making|allowing|using|providing|supporting|having|including|enabling|bringing|creating|offering|opening|changing)\b/i,
      weight: 0.75,
      feature: true,
    },
    {
      re: /\b(?:let|allow|enable) (?:us|users|developers|devs|me|people|customers|apps) (?:to )?\w+/i,
      weight: 0.6,
      feature: true,
    },
    {
      re: /\b(?:can|could|will) (?:you|they|we|microsoft|apple|google) (?:please )?(?:add|make|allow|provide|support|fix|give|bring|include|enable|implement|consider)\b/i,
      weight: 0.75,
      feature: true,
    },
    {
      re: /\bit (?:would|will|could|might) (?:really |also |greatly )?(?:help|be (?:helpful|useful|better|easier|good)|make (?:sense|it easier|life easier))\b/i,
      weight: 0.7,
      feature: true,
    },
    {
      re: /\bwould be (?:really |very |so )?(?:nice|great|awesome|helpful|useful|cool|ideal|welcome|appreciated)\b/i,
      weight: 0.75,
      feature: true,
    },
    {
      re: /\bthere(?:'s| is) no (?:way|option|setting|support|ability|feature|api) (?:to|for)\b/i,
      weight: 0.6,
      feature: true,
    },
    { re: /\b(?:i|we)(?:'d| would) like (?:a|an|the|more|some)\b/i, weight: 0.65, feature: true },
    {
      re: /^(?:make|give|bring|let|fix|improve|update|change|remove|open|create|offer|put|use|unify|increase|reduce|show|display) (?:a |an |the |more |it |us |me |users? |developers? |people |all |back |them available|this )/i,
      weight: 0.6,
      feature: true,
    },
    { re: /^(?:support for|ability to|option to|an option to|a way to|need an? )/i, weight: 0.65, feature: true },
    {
      re: /\b(?:please|pls|plz)\b(?! (?:note|see|excuse|forgive|keep|don'?t|do not|read|find|refer|ignore|bear|help|advise|let me know|be (?:patient|aware|gentle|kind|nice)))/i,
      weight: 0.55,
      feature: true,
    },
    {
      re: /\bneeds? to be (?:added|improved|fixed|supported|implemented|updated|changed|available|possible|easier)\b/i,
      weight: 0.7,
      feature: true,
    },
    {
      re: /\b(?:would|'d) (?:like|love|want) to be able to\b|\b(?:want|need) the ability\b/i,
      weight: 0.75,
      feature: true,
    },
    {
      re: /\b(?:needs?|requires?|lacks?|is missing) (?:a |an |more |better |some |proper |native |support|the ability|an option)/i,
      weight: 0.5,
      feature: true,
    },
    {
      re: /\b(?:adding|having|supporting|allowing|providing) .{1,60} would (?:be|help|make|improve|allow)\b/i,
      weight: 0.75,
      feature: true,
    },
    { re: /\bmake it (?:possible|easier|easy|simpler) (?:to|for)\b/i, weight: 0.65, feature: true },
    {
      re: /\b(?:in|for) (?:the |a )?(?:future|next) (?:versions?|releases?|updates?|builds?)\b/i,
      weight: 0.6,
      feature: true,
    },
    {
      re: /\bit(?:'s| is| would be) (?:very |really )?(?:important|necessary|essential|crucial) (?:to|that)\b/i,
      weight: 0.5,
      feature: true,
    },
    {
      re: /\b(?:i|we) hope (?:you|they|microsoft|apple|google|that|the|it|we) (?!(?:all |guys )?(?:have|had|are|were|enjoy|enjoyed|find|like|liked|get well|feel)\b)(?:will |can |would |could )?/i,
      weight: 0.5,
      feature: true,
    },
    // Not an invitation to share: "I'd love to see yours as well!" under a list of bookmarks ("I'd
    // like to see what you use" does ask).
    {
      re: /(?:\b(?:i|we)(?:'d| would)|^would|^i'd) (?:really |so |very much |just |also )?(?:like|love) (?:to (?:see(?! (?:yours|your (?:own|lists?|collections?|bookmarks|work|setups?|favou?rites?)|others'|other people's)\b)|have)|a way|an option|the ability|support|it if)\b/i,
      weight: 0.8,
      feature: true,
    },
    { re: /\b(?:need|want) (?:a way|an option|the ability|support for|to be able)\b/i, weight: 0.7, feature: true },
    { re: /\bwhy (?:not|don'?t you|can'?t (?:we|i|you)|isn'?t there|is there no)\b/i, weight: 0.55, feature: true },
    {
      re: /^(?:add|allow|provide|support|include|enable|implement|introduce|expose|integrate) (?:a |an |the |more |support|options?|ability|some |users? |us |me |developers? )/i,
      weight: 0.7,
      feature: true,
    },
    {
      re: /^(?:maybe |perhaps |also |just )?(?:add|enable|integrate|extend|limit|group|open up|bring back|allow|expose|offer|provide|support) (?:\w+ )?(?:\w+)/i,
      weight: 0.55,
      feature: true,
    },
  ],
  advice_request: [
    {
      re: /\b(?:any|some|need|needs|want|looking for|seeking|appreciate|welcome|would love) (?:\w+ )?(?:advice|tips|help|guidance|input|insight|pointers|direction)\b/i,
      weight: 0.8,
    },
    { re: /\bhow (?:do|can|should|would|could|did) (?:i|we|one|you)\b/i, weight: 0.7 },
    {
      re: /\b(?:any|some) (?:good )?(?:suggestions?|recommendations?|thoughts|ideas|strategies|tips)\b.*\?|\bdoes (?:anyone|anybody) have (?:any )?(?:advice|tips|experience|suggestions?|ideas)\b/i,
      weight: 0.75,
    },
    { re: /\bwhat (?:should|would|do) (?:i|we|you) (?:do|suggest|think|try)\b/i, weight: 0.7 },
    { re: /\bshould (?:i|we)\b.*\?/i, weight: 0.65 },
    { re: /\bwhere (?:do|should|can) (?:i|we) (?:start|begin|find|learn)\b/i, weight: 0.7 },
    { re: /\b(?:i|we) (?:need|could use) (?:some )?help\b|\bhelp (?:me|us|needed|wanted)\b|^help\b/i, weight: 0.7 },
    { re: /\bhow to\b.*\?|^how to\b/i, weight: 0.55 },
    { re: /\b(?:advice|help|tips)\b/i, weight: 0.45 },
    // A question in a forum post is an ask for advice unless a stronger cue says what kind.
    { re: /\?\s*$/, weight: 0.5 },
  ],
  pain_point: [
    {
      re: /\b(?:frustrat\w*|nightmare|headache|pain in the|killing (?:me|us)|fed up|sick of|tired of|at my wits|ridiculous|unacceptable|disappointed|disappointing|useless|waste of (?:time|money)|rip-?off|scam(?:med)?)\b/i,
      weight: 0.8,
    },
    {
      re: /\b(?:doesn'?t|does not|won'?t|will not|isn'?t|is not|aren'?t|can'?t|cannot|couldn'?t|didn'?t) (?:even )?(?:work|working|load|loading|start|open|connect|sync|respond|send|print|boot|find|get|seem|figure|access|log ?in|let me|help|arrive|deliver|accept)\b/i,
      weight: 0.75,
    },
    // "missing", but not "am I missing something?", "anything I may be missing".
    {
      re: /\b(?:not working|stopped working|no longer works?|keeps? (?:on )?\w+ing|crash(?:es|ed|ing)?|freez(?:es|ing)|broken|broke|buggy|outage|down again|unable to|impossible to|so hard to|expired|defective|faulty|damaged|(?<!\b(?:am i|i'?m|i am|i may be|i might be|may be|might be|could be|be) )missing(?! (?:something|anything|out|the point)\b))\b/i,
      weight: 0.75,
    },
    // A bare negation is weak evidence, and none in the idioms of praise or of having no trouble:
    // "never had better service", "couldn't be happier", "can't thank them enough", "haven't had
    // any issues".
    {
      re: /\b(?:doesn'?t|does not|won'?t|will not|can'?t|cannot|couldn'?t|didn'?t|haven'?t|hasn'?t|wasn'?t|weren'?t|isn'?t|aren'?t|never|no longer|no one|nobody) (?!(?:have |ever )?(?:had|seen|received|gotten|got|experienced|be|ask for|asked for|have asked for) (?:a |any |such )?(?:better|happier|nicer|friendlier|faster|smoother|easier|more (?:helpful|pleased|satisfied))\b|(?:\w+ )?(?:thank|recommend|praise)\w* (?:\w+ ){0,3}enough\b|(?:ever )?(?:had|have|has|having|get|got|gotten|getting|run into|ran into|experienced|seen|found) (?:any |a |a single |one |much |many )?(?:problems?|issues?|complaints?|trouble)\b)(?:\w+ )?\w+/i,
      weight: 0.4,
    },
    {
      re: /(?:^|\s)#(?:fail|epicfail|badservice|customerservice|disappointed|annoyed|frustrated|notimpressed|unhappy|help|wtf|sucks)\b/i,
      weight: 0.7,
    },
    { re: /\bwhy (?:is|are|do|does|did|can'?t|won'?t|would|has|have|is it) .*\?/i, weight: 0.4 },
    {
      re: /\b(?:price hike|raised (?:the |their |your )?prices?|more expensive|wrong (?:size|item|order|product|charge)|too (?:large|small|big|tight|late|long))\b/i,
      weight: 0.7,
    },
    {
      re: /\b(?:still (?:waiting|haven'?t|not|no)|never (?:arrived|received|got|came|showed|heard)|hasn'?t (?:arrived|come|been|shipped)|no (?:response|reply|answer|refund)|on hold for)\b/i,
      weight: 0.8,
    },
    {
      re: /\b(?:too (?:expensive|slow|complicated|hard|costly|pricey)|overpriced|overcharg\w*|charged (?:me|us|twice|again)|hidden fees?)\b/i,
      weight: 0.75,
    },
    {
      re: /\b(?:struggl\w*|having (?:a )?(?:hard time|trouble|problems?|issues?)|(?<!\b(?:no|without|zero|never had|never had any|haven'?t had any|hasn'?t had any|hadn'?t had any|not had any) )(?:problems? with|issues? with|trouble with)|stuck (?:on|with)|losing (?:money|customers|clients|sales|traffic|data))\b/i,
      weight: 0.7,
    },
    {
      re: /\b(?:terrible|awful|horrible|worst|poor|bad|rude|lousy|pathetic|appalling|shocking) (?:customer |)?(?:service|support|experience|quality|product|company|app|update|delivery|connection)\b/i,
      weight: 0.8,
    },
    // Complaint phrasings without a complaint word: waiting, lateness, things breaking, walking away.
    {
      re: /\b(?:been|keep|kept) waiting\b(?! to see| for (?:years|the (?:right|opportunity|day)))|\bwaiting (?:for|on) .{0,40}\b(?:for|since) (?:\d+|two|three|four|five|several|many|a few|over a|more than a) (?:days?|weeks?|months?|hours?)\b/i,
      weight: 0.7,
    },
    { re: /\b\d+ ?(?:hrs?|hours?|mins?|minutes?|days?) (?:late|delay(?:ed)?|overdue)\b/i, weight: 0.75 },
    {
      re: /\bnever again\b|\b(?:the )?last time (?:i|we)(?:'ll| will)? (?:ever )?(?:buy|order|use|fly|shop|book|eat|stay)\b|\b(?:not|never|don'?t) (?:to )?(?:buy|order|shop) (?:from )?(?:your|you|them|this company)\b/i,
      weight: 0.8,
    },
    {
      re: /\b(?:fell|falls?|falling|came|coming|comes) apart\b|\b(?:went|go|goes|gone) dead\b|\bdied (?:on (?:me|us)|after|within)\b|\b(?:already )?(?:has|have|had|got) (?:a )?(?:hole|holes|crack|cracks|tear|dent|scratches)\b/i,
      weight: 0.7,
    },
    { re: /\b(?:is|are|was|so|too|very|really|extremely|painfully|incredibly|ridiculously) slow\b/i, weight: 0.6 },
    { re: /\b(?:a|an absolute|such a|complete|total|absolute) joke\b/i, weight: 0.7 },
    { re: /\bignor(?:ing|ed|es) (?:my|me|all|our|us|every|the)\b|\bhung up on\b|\bhangs? up on\b/i, weight: 0.7 },
    {
      re: /\b(?:mistreat\w*|discriminat\w*|misleading|false advertising|full of lies|lied to (?:me|us)|lying to (?:me|us|customers))\b/i,
      weight: 0.6,
    },
    {
      re: /\blet(?:s|ting)? (?:me|us|everyone|customers) down\b|\b(?:not|haven'?t|never|still not) heard back\b|\b(?:has|have) yet to (?:arrive|ship|be|come|reply|respond|receive|hear|get)\b/i,
      weight: 0.75,
    },
    {
      re: /\b(?:pathetic|disgrace(?:ful)?|extortion|fleeced|shattered|leaking)\b|\bhalf empty\b|\bcharging (?:me|us) (?:extra|more|twice|for)\b/i,
      weight: 0.7,
    },
    {
      re: /\b(?:the|my|our|its|it's|their|your) worst\b(?![- ]case\b)|\bworst (?:\w+ )?(?:ever|(?:i|we)(?:'ve| have)? (?:ever )?(?:had|seen|used|experienced|dealt|bought))\b|#worst\w*/i,
      weight: 0.6,
    },
    { re: /\b(?:price|fee|rate|prices|fees|rates) (?:increase|increases|hike|hikes|went up|gone up)\b/i, weight: 0.65 },
    {
      re: /\b(?:hate|sucks?|annoy\w*|irritat\w*|angry|furious|upset|fail(?:s|ed|ing|ure)?|error|bug|delay(?:ed|s)?|late|cancel(?:l?ed)?|lost|refund|complain\w*)\b/i,
      weight: 0.4,
    },
  ],
};

/** How strongly each intent shows in a post, and where. */
export interface IntentMatch {
  /** 0..1 */
  strength: number;
  /** Distinct cues that matched anywhere. */
  cues: number;
  /** The sentence holding the strongest cue. */
  sentence: Sentence | undefined;
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
  for (const intent of Object.keys(CUES) as Intent[]) {
    let best = 0;
    let where: Sentence | undefined;
    let hits = 0;
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
        if (w > best) {
          best = w;
          where = s;
        }
      }
      if (hit) hits++;
    }
    const agreement = Math.min(0.15, 0.05 * Math.max(0, hits - 1));
    out[intent] = { strength: best === 0 ? 0 : Math.min(1, best + agreement), cues: hits, sentence: where };
  }
  return out;
}
