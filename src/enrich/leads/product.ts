/**
 * `target_product`: the product or category a post is about. Named products come from a small
 * gazetteer of tools forum posters ask about; categories from phrase patterns ("email marketing
 * tool", "CRM"). A match in the sentence carrying the intent wins over one elsewhere in the post.
 */
import { compileLiterals } from "./literals.js";
import { sentenceView, type Sentence, type SentenceView } from "./text.js";

/**
 * Named products, matched case-insensitively on word boundaries, reported with this spelling.
 * Products whose names are common words (Square, Wave, Office, Buffer) are left out.
 */
const PRODUCTS = [
  "Shopify", "WooCommerce", "Magento", "BigCommerce", "Squarespace", "Wix", "Weebly", "WordPress", "Drupal", "Joomla",
  "Etsy", "eBay", "Amazon", "PayPal", "Stripe", "Braintree", "Authorize.net",
  "Salesforce", "HubSpot", "Zoho", "Pipedrive", "Highrise", "Insightly", "SugarCRM",
  "MailChimp", "Constant Contact", "AWeber", "GetResponse", "SendGrid", "Campaign Monitor",
  "QuickBooks", "Xero", "FreshBooks", "Gusto",
  "Google Analytics", "Google AdWords", "AdWords", "Google Ads", "Facebook Ads", "Hootsuite", "Moz", "Ahrefs", "SEMrush",
  "Trello", "Asana", "Basecamp", "Jira", "Slack", "Evernote", "Dropbox", "Google Drive", "Google Apps", "Office 365", "Excel",
  "Zendesk", "Freshdesk", "Intercom", "Olark", "Zapier",
  "GoDaddy", "HostGator", "Bluehost", "DreamHost", "Linode", "DigitalOcean", "Heroku", "AWS", "Azure", "Rackspace", "Cloudflare",
  "Windows Server", "Exchange Server", "Active Directory", "VMware", "ESXi", "Hyper-V", "Outlook", "Windows", "Ubuntu", "Linux",
  "iPhone", "iPad", "MacBook", "Android", "Galaxy", "Kindle", "Chromebook",
  "Photoshop", "Illustrator", "InDesign", "Sketch",
  "Kickstarter", "Indiegogo", "Upwork", "oDesk", "Elance", "Fiverr", "99designs", "Yelp", "Groupon", "LinkedIn", "Twitter", "Facebook", "Instagram", "Pinterest", "YouTube",
];
const CANONICAL = new Map(PRODUCTS.map((name) => [name.toLowerCase(), name]));
const PRODUCT_RE = new RegExp(
  `(?<![\\w.])(?:${[...PRODUCTS]
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/[.+]/g, "\\$&").replace(/ /g, "\\s+"))
    .join("|")})(?![\\w])`,
  "i",
);

/** Categories: pattern -> label reported. First match in list order wins within a sentence. */
const CATEGORIES: readonly [RegExp, string][] = [
  [/\bcrm\b|\bcustomer relationship\b/i, "CRM"],
  [/\bemail (?:marketing|campaign|newsletter)s? ?(?:tool|software|service|platform|program|provider)?\b|\bnewsletter (?:tool|service|software)\b/i, "email marketing tool"],
  [/\b(?:accounting|bookkeeping) (?:software|tool|program|system|app|service)?\b/i, "accounting software"],
  [/\binvoic(?:e|ing) (?:software|tool|app|system|service)\b/i, "invoicing software"],
  [/\bpayroll\b/i, "payroll service"],
  [/\b(?:payment (?:processor|processing|gateway)|merchant account|credit card processing)\b/i, "payment processing"],
  [/\b(?:pos|point of sale)(?: system)?\b/i, "POS system"],
  [/\b(?:e-?commerce|online store|shopping cart) (?:platform|software|solution|site)?\b/i, "ecommerce platform"],
  [/\b(?:web ?hosting|hosting (?:provider|company|service)|shared hosting|vps|dedicated server)\b/i, "web hosting"],
  [/\bwebsite builder\b/i, "website builder"],
  [/\b(?:project management|task management|to-?do) (?:tool|software|app|system)?\b/i, "project management tool"],
  [/\b(?:help ?desk|ticketing system|support ticket)\b/i, "help desk software"],
  [/\blive chat\b/i, "live chat software"],
  [/\b(?:seo (?:tool|software|service|company|agency|firm)s?|rank(?:ing)? track\w*|(?:track|tracking|monitor|check) (?:\w+ ){0,2}(?:rankings?|serps?|keyword positions?)|keyword research tool|backlink (?:checker|tool))\b/i, "SEO tool"],
  [/\bseo\b/i, "SEO service"],
  [/\bsocial media (?:management|scheduling|tool|manager|marketing)\b/i, "social media management tool"],
  [/\b(?:analytics (?:tool|software|platform|package)|web analytics)\b/i, "analytics tool"],
  [/\b(?:backup (?:software|solution|service|system)|offsite backup|cloud backup)\b/i, "backup solution"],
  [/\b(?:antivirus|anti-virus|malware removal|endpoint protection)\b/i, "antivirus"],
  [/\bvpn\b/i, "VPN"],
  [/\b(?:password manager)\b/i, "password manager"],
  [/\b(?:nas|network attached storage)\b/i, "NAS"],
  [/\b(?:router|firewall|switch|access point|wifi|wi-fi)\b/i, "network equipment"],
  [/\b(?:laptop|notebook)\b/i, "laptop"],
  [/\b(?:graphics card|gpu)\b/i, "graphics card"],
  [/\b(?:phone|smartphone|cell ?phone)\b/i, "smartphone"],
  [/\b(?:logo|branding) (?:design|designer)?\b/i, "logo design"],
  [/\b(?:web ?designer|web ?developer|web design|website design|developer)\b/i, "web developer"],
  [/\b(?:app developer|mobile app|ios app|android app)\b/i, "mobile app development"],
  [/\b(?:lawyer|attorney|legal advice)\b/i, "lawyer"],
  [/\b(?:accountant|cpa|bookkeeper)\b/i, "accountant"],
  [/\b(?:insurance)\b/i, "business insurance"],
  [/\b(?:shipping|courier|freight|fulfil?ment)\b/i, "shipping service"],
  [/\b(?:domain name|domain registrar)\b/i, "domain registrar"],
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

function inSentence(text: string, can: Candidates): string {
  const named = can.named ? PRODUCT_RE.exec(text) : null;
  if (named) return CANONICAL.get(named[0].toLowerCase().replace(/\s+/g, " ")) ?? named[0];
  for (const [re, label] of can.categories) if (re.test(text)) return label;
  return "";
}

/** True for a named product (Shopify), false for a category (CRM, email marketing tool). */
export function isNamedProduct(target: string): boolean {
  return CANONICAL.has(target.toLowerCase());
}

/**
 * The product or category a post is about, preferring the sentence that carries its intent.
 * `view` (the sentences', when the caller has it) rules out the patterns absent from the post.
 */
export function findTargetProduct(sentences: readonly Sentence[], focus: Sentence | undefined, view: SentenceView = sentenceView(sentences)): string {
  const can = candidatesIn(view);
  if (focus) {
    // A focus from elsewhere than `sentences` is not covered by the view.
    const hit = inSentence(focus.text, sentences.includes(focus) ? can : ALL);
    if (hit) return hit;
  }
  for (const s of sentences) {
    const hit = inSentence(s.text, can);
    if (hit) return hit;
  }
  return "";
}
