/**
 * `target_product`: the product or category a post is about. What the post wants replaced comes
 * first (replaced.ts: "Skype alternatives for Linux?" is about Skype); then named products from
 * the gazetteer (gazetteer.ts, its data in products/products.json); then categories from phrase
 * patterns ("email marketing tool", "CRM"); and when none of those names anything, the span the
 * product tagger finds (products/tagger.ts: "a gaming PC", "a torrent client"). Only the sentence
 * carrying the intent and the title are read, in that order: a product named anywhere else in a
 * post is mostly context (the phone a poster was called on, the shipping a price includes).
 */
import { canonicalProduct, namedProductAt, namesListedAfter, PLATFORMS, PRODUCT_RE } from "./gazetteer.js";
import { compileLiterals } from "./literals.js";
import type { ProductTaggerModel, TaggedSpan } from "./products/tagger.js";
import { bestSpan } from "./products/tagger.js";
import { productTagger, taggerSentence } from "./products/tagger-model.js";
import { replacedName } from "./replaced.js";
import { type Sentence, type SentenceView, sentenceView } from "./text.js";

/** What a lead is about, as `target_product` reports it and `opportunity` phrases it. */
export interface Target {
  /** The product or category; "" when the post names none. */
  name: string;
  /** A product by name (Shopify, Gmail), not a category (CRM, web hosting). */
  named: boolean;
  /** The post wants something in its place: "alternatives to Gmail", "switching from Basecamp". */
  replacing: boolean;
  /**
   * The product is named as an example of the kind wanted, not as the thing used: "something like
   * Skype", "sites similar to oDesk", "a Kickstarter-like site", "Sharepoint or something similar".
   */
  like?: boolean;
  /**
   * The product heads a list of names ("onto Facebook, Twitter, Pinterest & Instagram", "Trello
   * or Asana?"): the channels a wanted thing must reach or the candidates weighed, so the kind of
   * thing the post names, when it names one, says more than the first name of the list.
   */
  listed?: boolean;
}

const NO_TARGET: Target = { name: "", named: false, replacing: false };

/**
 * Before a name, what makes it an example: "like", "similar to", "such as", "a la". A bare "like"
 * after a subject or a verb of seeming is the verb or a comparison of the poster ("I like
 * WordPress", "would like a YouTube series", "felt like a Linux ninja"), not an example.
 */
const LIKE_BEFORE =
  /(?:\b(?:similar to|such as|à la|a la)|(?<!\b(?:i|you|we|they|he|she|it|who|would|i'd|we'd|do|does|did|don'?t|doesn'?t|really|also|just|to|felt|feel|feels|looks?|sounds?|seems?)\s)\blike)\s+(?:an? |the )?$/i;

/**
 * After a name: "-like", "like" then the kind of thing ("a NINITE like website"), "or (something)
 * similar", "clone(s)". Not "Facebook Like button" nor "Use Excel like a calculator".
 */
const LIKE_AFTER =
  /^(?:-like\b|\s+like\s+(?:websites?|sites?|apps?|applications?|services?|platforms?|business(?:es)?|tools?|software|products?|startups?|systems?)\b|,?\s+or\s+(?:something\s+|anything\s+)?similar\b|[- ]clones?\b)/i;

/** Whether the name at [start, end) of `text` is named as an example of the kind wanted. */
function namedAsExample(text: string, start: number, end: number): boolean {
  return LIKE_BEFORE.test(text.slice(Math.max(0, start - 40), start)) || LIKE_AFTER.test(text.slice(end, end + 40));
}

/** Developers of something other than the web: "an app developer", "iOS developers", "a game developer". */
const NOT_WEB_DEVELOPERS = "app|ios|iphone|ipad|android|mobile|game";

/**
 * Categories: pattern -> label reported. First match in list order wins within a sentence. The
 * products and services people shop for also match in the plural ("any good hosting providers?");
 * professions do not ("accountants", "web developers" are mostly the poster's own trade), except
 * developers being hired ("finding qualified PHP developers": 50 leads of the corpora, about 8 in
 * 10 of them read right by hand).
 */
const CATEGORIES: readonly [RegExp, string][] = [
  [/\bcrm\b|\bcustomer relationship\b/i, "CRM"],
  [
    /\bemail (?:marketing|campaign|newsletter)s? ?(?:tool|software|service|platform|program|provider)?\b|\bnewsletter (?:tool|service|software)\b/i,
    "email marketing tool",
  ],
  // The kind of thing is required: "accounting" alone is mostly the profession, the degree or r/Accounting.
  [
    /\b(?:accounting|bookkeeping)(?: (?:and|&) \w+)? (?:software|tools?|programs?|system|apps?|package|solution|platform)\b|\b(?:software|tools?|programs?|apps?)(?: [\w']+){0,4} for (?:accounting|bookkeeping)\b/i,
    "accounting software",
  ],
  // "invoicing and payment software", "what software do you use to create invoices", "what do you use for time tracking and invoicing",
  // "is there a free service that i can create quotes, invoices, etc?".
  [
    /\binvoic(?:e|ing)(?: (?:and|&) \w+)? (?:software|tools?|apps?|systems?|services?|programs?|solutions?)\b|\b(?:software|tools?|programs?|apps?|services?|use)(?: [\w']+){0,4} (?:for|to|that (?:i|we) can|where (?:i|we) can) (?:create |send |make |manage |do |track )?(?:(?:[\w-]+,? ){1,2}(?:(?:and|&) )?)?invoic(?:es|ing)\b/i,
    "invoicing software",
  ],
  [/\bpayroll\b/i, "payroll service"],
  [/\bexpenses?[- ]?(?:track\w*|reports?|reporting|management)\b|\bmileage[- ]?track\w*/i, "expense tracking software"],
  [
    /\b(?:payment (?:processors?|processing|gateways?|solutions?|systems?|providers?|platforms?)|merchant accounts?|credit card processing)\b/i,
    "payment processing",
  ],
  [/\b(?:(?<!\breal[- ])time[- ]?track(?:ing|er)|timesheets?|time sheets?)\b/i, "time tracking software"],
  [/\bnote[- ]?taking (?:apps?|applications?|tools?|programs?|software|services?)\b/i, "note-taking app"],
  [/\b(?:pos|point of sale)(?: system)?\b/i, "POS system"],
  [
    /\binventory (?:management|tracking|control)(?: (?:software|system|tools?|apps?|solutions?))?\b|\binventory (?:software|system|apps?)\b/i,
    "inventory management software",
  ],
  // The software, not the PC: "a gaming/video editing rig" wants a computer.
  [/\bvideo edit(?:ing (?:software|programs?|apps?|tools?|suites?)|ors?)\b/i, "video editing software"],
  [/\b(?:ip|security|surveillance|cctv) cam(?:era)?s?\b|\bcctv\b/i, "security cameras"],
  // "ecommerce" alone is mostly an adjective ("ecommerce fulfillment companies", "an ecommerce business"): it needs the thing.
  [
    /\b(?:online store|shopping cart)\b|\be-?commerce (?:platform|software|solution|site|website|store|shop|cart|package|builder|cms|provider|plugin|system|saas|functionality)s?\b|\b(?:use|using) for e-?commerce\b/i,
    "ecommerce platform",
  ],
  // Mail on the poster's own domain, before web hosting, whose "hosting services" it would match.
  [
    /\b(?:e-?mail hosting|hosted e-?mail|e-?mail hosts?|business e-?mail (?:accounts?|providers?|services?|hosting)|e-?mail (?:accounts?|addresses|address) (?:for|on|with) (?:my|our|a|the|your) (?:own |custom |company'?s? )?domains?)\b/i,
    "email hosting",
  ],
  // "a new host" is the web host being replaced ("we will be finding a new host"), and bare
  // "hosting" is web hosting where it is what is asked for ("any recommendation on hosting"), not
  // the verb ("advice on hosting a meetup").
  [
    /\b(?:web ?hosting|(?:web|website) ?hosts?|hosting (?:providers?|compan(?:y|ies)|services?|plans?)|shared hosting|vps|dedicated servers?|new host|(?:recommendations?|suggestions?|recs|advice|looking for|need|want) (?:(?:on|for|some|a|good|cheap|reliable|decent|affordable) ){0,3}hosting(?! (?:a|an|the|my|our|your|this|that|events?|meetups?|part(?:y|ies)|guests|dinners?)\b))\b/i,
    "web hosting",
  ],
  [/\b(?:web)?site builders?\b/i, "website builder"],
  [
    /\b(?:project management|task management|to-?do(?: list)?) (?:tools?|software|apps?|system|platform)\b|\btask managers?\b/i,
    "project management tool",
  ],
  // A help desk alone is mostly a workplace or a job ("land a help desk gig", "I work at a high
  // school help desk"): the software is named as such.
  [
    /\b(?:help ?desk(?: ?\/ ?[\w ]{1,20}?)? (?:software|systems?|tools?|apps?|solutions?|platforms?|scripts?|packages?)|ticketing systems?|support tickets?|ticket (?:management|tracking) (?:system|software|tool)s?)\b/i,
    "help desk software",
  ],
  // "live chat", and the chat a site offers its visitors: "web site chat provider", "customer chat widget".
  [/\blive chat\b|\b(?:web ?site|customer|support) chat\b|\bchat (?:widgets?|providers?)\b/i, "live chat software"],
  // An SEO company, agency, firm or service is hired, not a tool: those fall to "SEO service" below.
  [
    /\b(?:seo (?:tool|software)s?|rank(?:ing)? track\w*|(?:track|tracking|monitor|check) (?:\w+ ){0,2}(?:rankings?|serps?|keyword positions?)|keyword research tool|backlink (?:checker|tool))\b/i,
    "SEO tool",
  ],
  [/\bseo\b/i, "SEO service"],
  [/\bsocial media (?:management|scheduling|tool|manager|marketing)\b/i, "social media management tool"],
  [/\b(?:analytics (?:tools?|software|platforms?|packages?)|web analytics)\b/i, "analytics tool"],
  [
    /\b(?:backup (?:[\w-]+ )?(?:software|solutions?|services?|systems?)|offsite backups?|cloud backups?)\b/i,
    "backup solution",
  ],
  [
    /\b(?:(?:network|server|system|uptime|log) monitoring|monitoring (?:tools?|software|systems?|solutions?|services?))\b/i,
    "monitoring tool",
  ],
  [/\b(?:antivirus|anti-virus|malware removal|endpoint protection)\b/i, "antivirus"],
  [/\bvpn\b/i, "VPN"],
  [/\b(?:password managers?)\b/i, "password manager"],
  [/\b(?:nas|network attached storage)\b/i, "NAS"],
  // "switch" alone is mostly the verb.
  [
    /\b(?:router|firewall|(?:network|ethernet|managed|unmanaged|gigabit|poe|\d+[- ]port) switch|access point|wifi|wi-fi)\b/i,
    "network equipment",
  ],
  [/\b(?:laptop|notebook)\b/i, "laptop"],
  [/\b(?:graphics cards?|gpus?)\b/i, "graphics card"],
  // Not "phone" alone: a phone interview, call or number is not the product.
  [/\b(?:smart ?phones?|cell ?phones?|mobile phones?|(?:new|unlocked|android|prepaid) phones?)\b/i, "smartphone"],
  [/\b(?:logo|branding) (?:design|designer)?\b/i, "logo design"],
  // In the plural only when hired: "finding qualified PHP web developers", "where to find devs?"
  // ("web developers" alone is mostly the poster's own trade), and "web design" not as a trade's
  // noun ("a web design project for hire", "new web design freelancer": the poster sells it); a web
  // design company or firm is as often hired as owned, and stays.
  [
    new RegExp(
      String.raw`\b(?:web ?designer|web ?developer|(?:web|website) design(?! (?:projects?|business(?:es)?|freelanc\w*|work|clients?|careers?|course|class|portfolio|skills?|industry|jobs?|gigs?)\b)|(?<!\b(?:${NOT_WEB_DEVELOPERS})\s)developer)\b|\b(?:find|finding|hire|hiring|recruit(?:ing)?|looking for|need|get|getting)\s+(?:(?!(?:for|to|with|in|of|about|useful)\s)[\w-]+\s+){0,3}?(?<!\b(?:${NOT_WEB_DEVELOPERS})\s)(?:developers|programmers|coders|devs)\b`,
      "i",
    ),
    "web developer",
  ],
  [
    /\b(?:app developers?|(?:ios|iphone|ipad|android|mobile) (?:app )?developer|mobile app|ios app|android app)\b/i,
    "mobile app development",
  ],
  // Not the poster's own career: "always wanted to be a lawyer", "working as an accountant".
  [/(?<!\b(?:be|become|becoming|am|i'm|im|as|i was|was) (?:a |an )?)\b(?:lawyer|attorney|legal advice)\b/i, "lawyer"],
  [
    /(?<!\b(?:be|become|becoming|am|i'm|im|as|i was|was) (?:a |an )?)\b(?:accountant|cpa|bookkeeper)\b|\boutsourc\w* (?:my |our |the )?(?:accounting|bookkeeping)\b/i,
    "accountant",
  ],
  // Car, health and mortgage insurance come up as often as a business's own.
  [/\b(?:insurance)\b/i, "insurance"],
  // Not "shipping" alone: a price that includes shipping is not a search for a carrier.
  // A sentence that opens with it is about it: "Shipping for Ecommerce", "International shipping questions?".
  [
    /\b(?:shipping (?:company|companies|service|services|carriers?|providers?|options|rates|solution)|couriers?|freight|fulfill?ment (?:centers?|centres?|services?|company|companies|houses?))\b|^(?:international |domestic |overseas |worldwide |cheap(?:er|est)? |affordable )?shipping\b/i,
    "shipping service",
  ],
  [/\b(?:domain names?|domain registrars?)\b/i, "domain registrar"],
  [/\b(?:marketing agency|ad agency|advertising agency|pr firm)\b/i, "marketing agency"],
  [/\b(?:website|web site)\b/i, "website"],
  [/\b(?:plugin|extension|add-?on)\b/i, "plugin"],
  [/\b(?:framework|library)\b/i, "software library"],
];

/** The gazetteer and category patterns, prefiltered by their literals (exported for the prefilter test). */
export const TARGET_PATTERNS: readonly RegExp[] = [PRODUCT_RE, ...CATEGORIES.map(([re]) => re)];

/** Literals of the gazetteer and of each category (literals.ts), to skip those absent from a post. */
const PRODUCT_LITERALS = compileLiterals(PRODUCT_RE);
const CATEGORY_LITERALS = CATEGORIES.map(([re]) => compileLiterals(re));

/** What can match in one post: the gazetteer or not, and the categories whose literals occur. */
interface Candidates {
  named: boolean;
  categories: readonly (readonly [RegExp, string])[];
}

const ALL: Candidates = { named: true, categories: CATEGORIES };

function candidatesIn(view: SentenceView): Candidates {
  return {
    named: view.grams.mayMatch(PRODUCT_LITERALS),
    categories: CATEGORIES.filter((_, i) => view.grams.mayMatch(CATEGORY_LITERALS[i]!)),
  };
}

/** Options of {@link findTargetProduct}. */
export interface TargetOptions {
  /** Read what a post wants replaced (replaced.ts) first; the evaluation turns it off to compare. Default true. */
  replaced?: boolean;
  /** Ask the product tagger when the rules name nothing; the evaluation turns it off to compare. Default true. */
  tagger?: boolean;
  /** A tagger other than the committed one (training chooses its threshold on dev this way). */
  taggerModel?: ProductTaggerModel;
}

/** What `text` wants replaced, as a target (a category when the name is one), or undefined. */
function replacedIn(text: string): Target | undefined {
  const replaced = replacedName(text);
  if (!replaced) return undefined;
  // An unlisted name may be a kind of thing written in capitals ("alternatives to CRM", "VPS alternatives").
  const kind = canonicalProduct(replaced) ? undefined : CATEGORIES.find(([re]) => re.test(replaced));
  return kind ? { name: kind[1], named: false, replacing: true } : { name: replaced, named: true, replacing: true };
}

/**
 * Categories so broad that a product named in the same sentence says more: "my website runs on
 * WordPress", "a WordPress plugin", "an Android developer" (the category's bare "developer"), "the
 * Ubuntu logo".
 */
const CATCH_ALL = new Set(["website", "plugin", "software library", "web developer", "logo design"]);

/**
 * The product or category `text` is about. A listed product wins, unless the kind of thing the
 * sentence asks for comes before it ("a CRM that syncs with Gmail", "accounting software for Etsy
 * sellers") or right after a platform's name, which only says which kind ("a good cheap Windows
 * VPS" is web hosting), or around it for a developer ("an Android developer"). Among categories
 * the list order decides.
 */
function namedIn(text: string, can: Candidates): Target | undefined {
  const at = can.named ? namedProductAt(text) : undefined;
  if (!at) {
    const kind = can.categories.find(([re]) => re.test(text));
    return kind && { name: kind[1], named: false, replacing: false };
  }
  const named: Target = {
    name: at.name,
    named: true,
    replacing: false,
    ...(namedAsExample(text, at.start, at.end) ? { like: true } : {}),
    ...(namesListedAfter(text, at.end) > 0 ? { listed: true } : {}),
  };
  for (const [re, label] of can.categories) {
    const m = re.exec(text);
    if (!m) continue;
    const category: Target = { name: label, named: false, replacing: false };
    // Wholly before: "use QuickBooks for invoices" matches the invoicing pattern around the name.
    const before = m.index + m[0].length <= at.start;
    const modified = PLATFORMS.has(at.name) && m.index >= at.end && /^\s*$/.test(text.slice(at.end, m.index));
    // A developer named by platform is the kind wanted: "an Android developer", "an iPhone App
    // Developer". Not "an iPhone app": mostly the poster's own ("pricing for my iPhone app").
    const covers =
      PLATFORMS.has(at.name) && m.index <= at.start && m.index + m[0].length >= at.end && /developers?$/i.test(m[0]);
    // A name given as an example says what kind; the kind, named, is the answer: "payment
    // processing like Recurly", "a Kickstarter-like crowdfunding site".
    return (before || modified || covers || named.like === true || named.listed === true) && !CATCH_ALL.has(label)
      ? category
      : named;
  }
  return named;
}

/**
 * The product or category a post is about. What it wants replaced comes first, in the sentence
 * that carries its intent, else in the title: in "Skype alternatives for Linux?" Linux is where,
 * and a post titled "Alternatives to Hootsuite?" that asks for "options aside from Hootsuite" wants
 * Hootsuite replaced. Then the product or category named in that sentence, else in the title, else "".
 * `view` (the sentences', when the caller has it) rules out the patterns absent from the post.
 */
export function findTargetProduct(
  sentences: readonly Sentence[],
  focus: Sentence | undefined,
  view: SentenceView = sentenceView(sentences),
  options: TargetOptions = {},
): Target {
  const title = sentences.filter((s) => s.inTitle && s !== focus);
  const read = focus ? [focus, ...title] : title;
  if (options.replaced !== false) {
    for (const s of read) {
      const hit = replacedIn(s.text);
      if (hit) return hit;
    }
  }
  const can = candidatesIn(view);
  for (const [i, s] of read.entries()) {
    // A focus from elsewhere than `sentences` is not covered by the view.
    const hit = namedIn(s.text, s === focus && !sentences.includes(focus) ? ALL : can);
    if (!hit) continue;
    // A platform named where the intent is ("it will run Ubuntu") says which kind, and a broad
    // kind there ("our website") says little; the kind the title names is what is wanted
    // ("Buying a New Laptop. Any Suggestions?", "Brother bought an SEO package ...").
    // So does a name given as an example there ("it would be great to use something like
    // Basecamp" under "project management software for marketing"), and the first of a list of
    // names ("push my products out onto Facebook, Twitter, Pinterest, Instagram" under "Integrated
    // platforms for social & email marketing?").
    if (
      i === 0 &&
      focus &&
      (hit.named ? PLATFORMS.has(hit.name) || hit.like === true || hit.listed === true : CATCH_ALL.has(hit.name))
    ) {
      for (const t of read.slice(1)) {
        const kind = namedIn(t.text, can);
        if (kind && !kind.named && !CATCH_ALL.has(kind.name)) return kind;
      }
    }
    return hit;
  }
  if (options.tagger === false) return NO_TARGET;
  const span = bestSpan(
    options.taggerModel ?? productTagger(),
    read.map((s) => taggerSentence(s.text, s === focus ? "focus" : "title")),
  );
  return span ? spanTarget(span) : NO_TARGET;
}

/**
 * A tagged span as a target: a gazetteer name or alias in its canonical spelling, else as
 * written. It is a name when the gazetteer lists it or it is written with a capital away from the
 * start of its sentence ("Swype", "Team Fortress"), a kind of thing otherwise ("gaming pc").
 */
function spanTarget(span: TaggedSpan): Target {
  const canonical = canonicalProduct(span.text);
  if (canonical !== undefined) return { name: canonical, named: true, replacing: false };
  const capital = span.start > 0 && /^\p{Lu}/u.test(span.text);
  return { name: span.text, named: capital, replacing: false };
}
