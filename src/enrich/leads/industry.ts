/**
 * The industry taxonomy (20 labels) and its inference: strong domain words in the text win,
 * then the subforum's usual industry, then weaker text evidence, else "general". The labels are
 * the documented value set of `industry`.
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
  productivity: "software_development",
  excel: "software_development",
  tech: "consumer_electronics",
  technology: "consumer_electronics",
};

/** Domain words per industry; two or more hits outweigh the subforum. */
const WORDS: Partial<Record<Industry, RegExp>> = {
  ecommerce_retail: /\b(?:e-?commerce|online store|shopify|woocommerce|magento|etsy|amazon seller|fba|dropship\w*|retail|inventory|storefront|checkout|product listings?)\b/gi,
  marketing_advertising: /\b(?:marketing|seo|adwords|google ads|facebook ads|ppc|campaigns?|newsletter|mailchimp|email list|leads?|conversion rate|social media|branding|advertis\w*|backlinks?|keywords?)\b/gi,
  accounting_tax: /\b(?:accounting|bookkeep\w*|quickbooks|xero|invoic\w*|payroll|tax(?:es)?|cpa|irs|vat|receipts?|expenses?)\b/gi,
  legal_compliance: /\b(?:llc|trademark|patent|copyright|lawyer|attorney|contracts?|incorporat\w*|gdpr|hipaa|compliance|lawsuit|legal|nda)\b/gi,
  real_estate: /\b(?:real estate|landlord|tenants?|mortgage|rental property|realtor|escrow|house flipping|property management)\b/gi,
  healthcare: /\b(?:clinic|patients?|medical|doctor|dental|dentist|hospital|healthcare|pharmacy|therap\w*)\b/gi,
  food_hospitality: /\b(?:restaurant|cafe|coffee shop|food truck|bakery|catering|menu|bar|brewery|hotel|kitchen)\b/gi,
  logistics_shipping: /\b(?:shipping|freight|courier|fedex|ups|usps|dhl|fulfil?ment|warehouse|logistics|parcel|delivery)\b/gi,
  cybersecurity: /\b(?:malware|virus|phishing|hacked|breach|encryption|firewall|vulnerabilit\w*|ransomware|2fa|password manager)\b/gi,
  it_infrastructure: /\b(?:server|active directory|vmware|esxi|hyper-v|exchange server|network(?:ing)?|switch(?:es)?|vlan|backup|nas|san|raid|dns|dhcp|vpn|cloud hosting|aws|azure)\b/gi,
  software_development: /\b(?:code|coding|developer|programming|api|framework|database|sql|javascript|python|php|ruby|rails|java|react|django|git|deploy\w*)\b/gi,
  finance_investing: /\b(?:stocks?|invest\w*|portfolio|dividends?|etf|broker(?:age)?|trading|options|bonds?|venture capital|vc|angel investors?|fundrais\w*)\b/gi,
  personal_finance: /\b(?:credit card|debt|savings|budget(?:ing)?|401k|ira|student loans?|credit score|rent)\b/gi,
  design_creative: /\b(?:logo|graphic design|photoshop|illustrator|typography|ui design|ux|mockups?|branding design|portfolio)\b/gi,
  consumer_electronics: /\b(?:iphone|ipad|android|laptop|macbook|gpu|cpu|motherboard|monitor|headphones|smartphone|tablet|samsung|galaxy)\b/gi,
  careers_hr: /\b(?:resume|interview|job offer|salary|hiring|recruit\w*|career|employees?|hr)\b/gi,
  education_training: /\b(?:course|tutorial|learn(?:ing)?|bootcamp|degree|university|college|students?|teach\w*)\b/gi,
  media_publishing: /\b(?:blog(?:ging)?|podcast|youtube|publish\w*|book|ebook|kindle|magazine|journalis\w*|content creator)\b/gi,
};

/** Each industry's words with their literals (literals.ts): most industries' words occur nowhere in a post. Exported for the prefilter test. */
export const WORD_RULES = (Object.entries(WORDS) as [Industry, RegExp][]).map(([industry, re]) => ({ industry, re, literals: compileLiterals(re) }));

/** The industry of a post from its subforum and text. */
export function inferIndustry(subforum: string, text: string): Industry {
  const sample = text.slice(0, 3000);
  const grams = new Trigrams(sample);
  let best: Industry | undefined;
  let bestHits = 0;
  for (const { industry, re, literals } of WORD_RULES) {
    if (!grams.mayMatch(literals)) continue;
    const hits = new Set((sample.match(re) ?? []).map((m) => m.toLowerCase())).size;
    if (hits > bestHits) {
      best = industry;
      bestHits = hits;
    }
  }
  if (best && bestHits >= 2) return best;
  const bySubforum = SUBFORUM[subforum.toLowerCase().replace(/^\/?r\//, "")];
  if (bySubforum) return bySubforum;
  return best ?? "general";
}
