/**
 * The gazetteer of named products: tools forum posters ask about, matched case-insensitively on
 * word boundaries and reported with one spelling. product.ts looks for them in a post's focus
 * sentence and title; replaced.ts in the place of the thing a post wants replaced.
 */

/**
 * Named products, matched case-insensitively on word boundaries, reported with this spelling.
 * Products whose names are common words (Square, Wave, Office, Buffer) are left out; those kept
 * whose names are also words (WORD_NAMES) must be written capitalised.
 */
const PRODUCTS: readonly string[] = [
  "Shopify",
  "WooCommerce",
  "Magento",
  "BigCommerce",
  "Squarespace",
  "Wix",
  "Weebly",
  "WordPress",
  "Drupal",
  "Joomla",
  "Etsy",
  "eBay",
  "Amazon",
  "PayPal",
  "Stripe",
  "Braintree",
  "Authorize.net",
  "Salesforce",
  "HubSpot",
  "Zoho",
  "Pipedrive",
  "Highrise",
  "Insightly",
  "SugarCRM",
  "MailChimp",
  "Constant Contact",
  "AWeber",
  "GetResponse",
  "SendGrid",
  "Campaign Monitor",
  "QuickBooks",
  "Xero",
  "FreshBooks",
  "Gusto",
  "Google Analytics",
  "Google AdWords",
  "AdWords",
  "Google Ads",
  "Facebook Ads",
  "Hootsuite",
  "Moz",
  "Ahrefs",
  "SEMrush",
  "Trello",
  "Asana",
  "Basecamp",
  "Jira",
  "Slack",
  "Evernote",
  "Dropbox",
  "Google Drive",
  "Google Apps",
  "Office 365",
  "Excel",
  "Gmail",
  "Hotmail",
  "Yahoo Mail",
  "Google Docs",
  "Skype",
  "TeamViewer",
  "WhatsApp",
  "Zendesk",
  "Freshdesk",
  "Intercom",
  "Olark",
  "Zapier",
  "GoDaddy",
  "HostGator",
  "Bluehost",
  "DreamHost",
  "Linode",
  "DigitalOcean",
  "Heroku",
  "AWS",
  "Azure",
  "Rackspace",
  "Cloudflare",
  "Windows Server",
  "Exchange Server",
  "Active Directory",
  "VMware",
  "ESXi",
  "Hyper-V",
  "Outlook",
  "Windows",
  "Ubuntu",
  "Linux",
  "iPhone",
  "iPad",
  "MacBook",
  "Android",
  "Galaxy",
  "Kindle",
  "Chromebook",
  "Photoshop",
  "Illustrator",
  "InDesign",
  "Sketch",
  "Kickstarter",
  "Indiegogo",
  "Patreon",
  "Upwork",
  "oDesk",
  "Elance",
  "Fiverr",
  "99designs",
  "Yelp",
  "Groupon",
  "LinkedIn",
  "Twitter",
  "Facebook",
  "Instagram",
  "Pinterest",
  "YouTube",
  "SharePoint",
  "LegalZoom",
];

/**
 * Names that are also everyday words ("lots of windows open", "the outlook for 2013", "excel at
 * sales"): a match counts only written with a capital, or, for Windows, lowercase before a
 * version ("windows 7", "windows xp") as people type it.
 */
const WORD_NAMES = new Set(["windows", "excel", "outlook", "slack", "sketch", "galaxy"]);
const WINDOWS_VERSION = /^\s+(?:xp|vista|me|nt|rt|server|phone|\d)/i;
const CANONICAL = new Map(PRODUCTS.map((name) => [name.toLowerCase(), name]));
export const PRODUCT_RE = new RegExp(
  `(?<![\\w.])(?:${[...PRODUCTS]
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/[.+]/g, "\\$&").replace(/ /g, "\\s+"))
    .join("|")})(?![\\w])`,
  "i",
);
/** The same, for walking every match of a sentence (matchAll copies it, so no state is shared). */
const PRODUCT_SCAN = new RegExp(PRODUCT_RE.source, "gi");

/**
 * Listed names that are platforms other things run on: before a kind of thing they only say which
 * one ("a Linux laptop", "a cheap Windows VPS", "an Excel timesheet"), where a vendor's name before
 * its own kind stays the product ("Highrise CRM", "Braintree Payment Solutions").
 */
export const PLATFORMS: ReadonlySet<string> = new Set([
  "Windows",
  "Linux",
  "Ubuntu",
  "Android",
  "iPhone",
  "iPad",
  "MacBook",
  "Chromebook",
  "WordPress",
  "Excel",
]);

/** The gazetteer's spelling of `name` (any case, spaces collapsed), or undefined when it is not listed. */
export function canonicalProduct(name: string): string | undefined {
  return CANONICAL.get(name.toLowerCase().replace(/\s+/g, " "));
}

/** The gazetteer, for stepping through a list from one name on (lastIndex set per call; the walk is synchronous). */
const LIST_SCAN = new RegExp(PRODUCT_RE.source, "gi");

/** What stands between two names of one list: a comma, "&", "/", "and" or "or" (", and"). */
const LIST_SEPARATOR = /^\s*(?:,\s*(?:(?:and|or|&)\s+)?|[&/]\s*|(?:and|or)\s+)$/i;

/**
 * How many listed names follow the name that ends at `end` of `text` as items of one list:
 * 3 after Facebook in "onto Facebook, Twitter, Pinterest & Instagram", 1 after Trello in "Trello
 * or Asana?", 0 when the name stands alone.
 */
export function namesListedAfter(text: string, end: number): number {
  const scan = LIST_SCAN;
  scan.lastIndex = end;
  let n = 0;
  let from = end;
  for (let m = scan.exec(text); m !== null && LIST_SEPARATOR.test(text.slice(from, m.index)); m = scan.exec(text)) {
    n++;
    from = m.index + m[0].length;
  }
  return n;
}

/**
 * The first listed product named in `text` as a name, with where it stands (start and end
 * offsets): a word name ({@link WORD_NAMES}) counts only written with a capital (or "windows"
 * before a version); undefined when none.
 */
export function namedProductAt(text: string): { name: string; start: number; end: number } | undefined {
  for (const m of text.matchAll(PRODUCT_SCAN)) {
    const key = m[0].toLowerCase().replace(/\s+/g, " ");
    if (
      WORD_NAMES.has(key) &&
      m[0][0] === key[0] &&
      !(key === "windows" && WINDOWS_VERSION.test(text.slice(m.index + m[0].length)))
    )
      continue;
    return { name: CANONICAL.get(key) ?? m[0], start: m.index, end: m.index + m[0].length };
  }
  return undefined;
}
