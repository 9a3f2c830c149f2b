/**
 * The industry taxonomy (20 labels) and its inference: each industry scores the distinct domain
 * words of it in the text, the subforum's usual industry scores {@link SUBFORUM_HITS} more, and the
 * highest score wins (the subforum's on ties), else "general". The labels are the documented value
 * set of `industry`; docs/EVALUATION.md ("Industry") measures the rule on hand-labelled leads.
 */

import { compileLiterals, Trigrams } from "./literals.js";

/** The closed set of industry labels. */
export const INDUSTRIES = [
  "software_development",
  "it_infrastructure",
  "it_support",
  "cybersecurity",
  "ecommerce_retail",
  "marketing_advertising",
  "design_creative",
  "finance_investing",
  "personal_finance",
  "accounting_tax",
  "real_estate",
  "consumer_electronics",
  "startups_small_business",
  "careers_hr",
  "education_training",
  "legal_compliance",
  "healthcare",
  "food_hospitality",
  "logistics_shipping",
  "media_publishing",
  "general",
] as const;
/** One of {@link INDUSTRIES}. */
export type Industry = (typeof INDUSTRIES)[number];

/** Subforum (lower-cased, without r/) -> its usual industry. Covers the corpora's 61 subreddits and SE sites. */
const SUBFORUM: Record<string, Industry> = {
  accounting: "accounting_tax",
  android: "consumer_electronics",
  apple: "consumer_electronics",
  iphone: "consumer_electronics",
  gadgets: "consumer_electronics",
  hardware: "consumer_electronics",
  buildapc: "consumer_electronics",
  buildapcforme: "consumer_electronics",
  design: "design_creative",
  graphicdesign: "design_creative",
  web_design: "design_creative",
  etsy: "ecommerce_retail",
  entrepreneur: "startups_small_business",
  startups: "startups_small_business",
  smallbusiness: "startups_small_business",
  business: "startups_small_business",
  kickstarter: "startups_small_business",
  startups_se: "startups_small_business",
  onstartups: "startups_small_business",
  frugal: "personal_finance",
  personalfinance: "personal_finance",
  finance: "finance_investing",
  investing: "finance_investing",
  stockmarket: "finance_investing",
  securityanalysis: "finance_investing",
  realestate: "real_estate",
  seo: "marketing_advertising",
  marketing: "marketing_advertising",
  advertising: "marketing_advertising",
  socialmedia: "marketing_advertising",
  php: "software_development",
  python: "software_development",
  java: "software_development",
  javascript: "software_development",
  programming: "software_development",
  rails: "software_development",
  webdev: "software_development",
  wordpress: "software_development",
  iosprogramming: "software_development",
  gamedesign: "software_development",
  software: "software_development",
  learnprogramming: "education_training",
  learnpython: "education_training",
  learnjavascript: "education_training",
  sysadmin: "it_infrastructure",
  linuxadmin: "it_infrastructure",
  networking: "it_infrastructure",
  homelab: "it_infrastructure",
  linux: "it_infrastructure",
  techsupport: "it_support",
  computertechs: "it_support",
  talesfromtechsupport: "it_support",
  linux4noobs: "it_support",
  linuxquestions: "it_support",
  netsec: "cybersecurity",
  privacy: "cybersecurity",
  jobs: "careers_hr",
  cscareerquestions: "careers_hr",
  freelance: "careers_hr",
  excel: "software_development",
  tech: "consumer_electronics",
  technology: "consumer_electronics",
};

/** Domain words per industry; two or more hits outweigh the subforum. */
const WORDS: Partial<Record<Industry, RegExp>> = {
  ecommerce_retail:
    /\b(?:e-?commerce|online store|shopify|woocommerce|magento|etsy|amazon seller|fba|dropship\w*|retail|inventory|storefront|checkout|product listings?)\b/gi,
  marketing_advertising:
    /\b(?:marketing|seo|adwords|google ads|facebook ads|ppc|campaigns?|newsletter|mailchimp|email list|leads?|conversion rate|social media|branding|advertis\w*|backlinks?|keywords?)\b/gi,
  accounting_tax:
    /\b(?:accounting|bookkeep\w*|quickbooks|xero|invoic\w*|payroll|tax(?:es)?|cpa|irs|vat|receipts?|expenses?)\b/gi,
  legal_compliance:
    /\b(?:llc|trademark|patent|copyright|lawyer|attorney|contracts?|incorporat\w*|gdpr|hipaa|compliance|lawsuit|legal|nda)\b/gi,
  real_estate:
    /\b(?:real estate|landlord|tenants?|mortgage|rental property|realtor|escrow|house flipping|property management)\b/gi,
  healthcare: /\b(?:clinic|patients?|medical|doctor|dental|dentist|hospital|healthcare|pharmacy|therap\w*)\b/gi,
  food_hospitality: /\b(?:restaurant|cafe|coffee shop|food truck|bakery|catering|menu|bar|brewery|hotel|kitchen)\b/gi,
  logistics_shipping:
    /\b(?:shipping|freight|courier|fedex|ups|usps|dhl|fulfill?ment|warehouse|logistics|parcel|delivery)\b/gi,
  cybersecurity:
    /\b(?:malware|virus|phishing|hacked|breach|encryption|firewall|vulnerabilit\w*|ransomware|2fa|password manager)\b/gi,
  it_infrastructure:
    /\b(?:server|active directory|vmware|esxi|hyper-v|exchange server|network(?:ing)?|switch(?:es)?|vlan|backup|nas|san|raid|dns|dhcp|vpn|hosting|aws|azure)\b/gi,
  software_development:
    /\b(?:code|coding|developer|programming|api|framework|database|sql|javascript|python|php|ruby|rails|java|react|django|git|deploy\w*)\b/gi,
  finance_investing:
    /\b(?:stocks?|invest\w*|portfolio|dividends?|etf|broker(?:age)?|trading|options|bonds?|venture capital|vc|angel investors?|fundrais\w*)\b/gi,
  personal_finance: /\b(?:credit card|debt|savings|budget(?:ing)?|401k|ira|student loans?|credit score|rent)\b/gi,
  design_creative:
    /\b(?:logo|graphic design|photoshop|illustrator|typography|ui design|ux|mockups?|branding design|portfolio)\b/gi,
  consumer_electronics:
    /\b(?:iphone|ipad|android|laptop|macbook|gpu|cpu|motherboard|monitor|headphones|smartphone|tablet|samsung|galaxy)\b/gi,
  careers_hr: /\b(?:resume|interview|job offer|salary|hiring|recruit\w*|career|employees?|hr)\b/gi,
  education_training:
    /\b(?:(?<!\bof )course|tutorial|learn(?:ing)?|bootcamp|degree|university|college|students?|teach\w*)\b/gi,
  media_publishing:
    /\b(?:blog(?:ging)?|podcast|youtube|publish\w*|book|ebook|kindle|magazine|journalis\w*|content creator)\b/gi,
};

/**
 * The top-level alternatives of a `\b(?:a|b|c)\b` word list, each made a capturing group, so a
 * match says which word of the list it is: "employee" and "employees", "learn" and "learning" are
 * one word of the list and count once. The lists use only non-capturing groups inside.
 */
function wordGroups(re: RegExp): RegExp {
  const inner = /^\\b\(\?:(.*)\)\\b$/.exec(re.source)?.[1];
  if (inner === undefined || /\((?!\?)/.test(inner))
    throw new Error(`industry words must read \\b(?:...)\\b with no capturing group: ${re.source}`);
  const words: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      words.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  words.push(inner.slice(start));
  return new RegExp(`\\b(?:${words.map((w) => `(${w})`).join("|")})\\b`, re.flags);
}

/** Each industry's words with their literals (literals.ts): most industries' words occur nowhere in a post. Exported for the prefilter test. */
export const WORD_RULES = (Object.entries(WORDS) as [Industry, RegExp][]).map(([industry, re]) => ({
  industry,
  re,
  groups: wordGroups(re),
  literals: compileLiterals(re),
}));

/** How many words of its list a text uses, each word of the list counted once whatever its form. */
function distinctWords(text: string, groups: RegExp): number {
  const seen = new Set<number>();
  for (const m of text.matchAll(groups)) seen.add(m.findIndex((g, i) => i > 0 && g !== undefined));
  return seen.size;
}

/**
 * What a subforum's usual industry counts for, in words of the text: a subforum on one trade
 * (r/netsec, r/talesfromtechsupport) outweighs two stray words of another ("programming" and
 * "java" in a post on a security tool) and yields to three. A startup or small-business forum
 * counts one: everything there is a small-business question, and two words of a trade (an
 * interview and hiring, a trademark lawyer) say which the post is about. Chosen on the dev half
 * of the labelled leads (docs/EVALUATION.md, "Industry"), where the text alone overruled a right
 * subforum six times in 50 and a wrong one three times.
 */
const SUBFORUM_HITS = 2;
const GENERALIST_HITS = 1;

/** The usual industry of a subforum ("r/SEO", "seo"), or undefined for one the table does not hold. */
export function subforumIndustry(subforum: string): Industry | undefined {
  return SUBFORUM[subforum.toLowerCase().replace(/^\/?r\//, "")];
}

/** The industry of a post from its subforum and text. */
export function inferIndustry(subforum: string, text: string): Industry {
  const sample = text.slice(0, 3000);
  const grams = new Trigrams(sample);
  const home = subforumIndustry(subforum);
  const homeWeight = home === undefined ? 0 : home === "startups_small_business" ? GENERALIST_HITS : SUBFORUM_HITS;
  let best: Industry | undefined = home;
  let bestScore = homeWeight;
  for (const { industry, groups, literals } of WORD_RULES) {
    if (!grams.mayMatch(literals)) continue;
    const score = distinctWords(sample, groups) + (industry === home ? homeWeight : 0);
    // Strictly more: the subforum keeps a tie.
    if (score > bestScore) {
      best = industry;
      bestScore = score;
    }
  }
  return best ?? "general";
}
