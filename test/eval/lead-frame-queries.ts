/**
 * FindLeads asked for 20 kinds of product four ways ("looking for a X", "need a X", "can anyone
 * recommend a X", "X"), and for 20 named products as a switch away from them ("alternative to
 * X", "X alternatives", "replacement for X", "switching from X", "X"), against a running service:
 * the share of each top 10 that names the product at all (title or returned content). Naming it
 * is a crude relevance label, but a lead that never names what was asked for is seldom a lead for
 * it. This is the measurement behind src/core/lead-query.ts: with the frame searched as written,
 * the framed phrasings found fewer posts about the product than the bare one. Run against a
 * server over the full index:
 *
 *   THREADSIGHT_URL=http://127.0.0.1:8080 THREADSIGHT_KEY=<key> node --import tsx test/eval/lead-frame-queries.ts
 */

/** Products, each with the pattern a lead must contain to name it. */
const PRODUCTS: readonly [string, RegExp][] = [
  ["project management tool", /project manag|task manag|\bpm tool|trello|asana|basecamp|jira/i],
  ["crm", /\bcrm|customer relationship|salesforce|hubspot/i],
  ["accounting software", /accounting|bookkeep|quickbooks|xero|freshbooks/i],
  ["email marketing service", /email marketing|newsletter|mailchimp|aweber|mailing list|email list/i],
  ["website builder", /website builder|site builder|wix|squarespace|weebly|wordpress/i],
  ["payroll software", /payroll/i],
  ["web hosting", /host/i],
  ["invoicing software", /invoic|billing/i],
  ["logo designer", /logo/i],
  ["seo service", /\bseo\b|search engine optim/i],
  ["help desk software", /help ?desk|support ticket|ticketing|zendesk|customer support/i],
  ["inventory management software", /inventory/i],
  ["social media scheduler", /social media|twitter|facebook|buffer|hootsuite/i],
  ["payment processor", /payment|stripe|paypal|merchant|credit card/i],
  ["password manager", /password/i],
  ["video conferencing tool", /video (?:conf|call|chat)|skype|zoom|webex|hangout/i],
  ["transcription service", /transcri/i],
  ["translation service", /translat/i],
  ["virtual assistant", /virtual assistant|\bva\b/i],
  ["time tracking app", /time track|timesheet|track(?:ing)? (?:my |our )?(?:time|hours)/i],
];
const PHRASINGS = ["looking for a {}", "need a {}", "can anyone recommend a {}", "{}"];

/** Named products of the three corpora (each named in 20 to 700 posts); a lead names it or not. */
const NAMED = [
  "mailchimp",
  "godaddy",
  "quickbooks",
  "paypal",
  "wordpress",
  "salesforce",
  "hootsuite",
  "basecamp",
  "dropbox",
  "skype",
  "evernote",
  "gmail",
  "shopify",
  "trello",
  "freshbooks",
  "heroku",
  "photoshop",
  "itunes",
  "google analytics",
  "zendesk",
];
const SWITCHES = ["alternative to {}", "{} alternatives", "replacement for {}", "switching from {}", "{}"];

const base = process.env.THREADSIGHT_URL ?? "http://127.0.0.1:8080";
const key = process.env.THREADSIGHT_KEY;
if (key === undefined) throw new Error("set THREADSIGHT_KEY to an API key of the service at THREADSIGHT_URL");

async function leads(query: string): Promise<{ title: string; content: string }[]> {
  const res = await fetch(`${base}/api/v1/leads`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query, limit: 10 }),
  });
  const body = (await res.json()) as { success: boolean; data?: { results: { title: string; content: string }[] } };
  if (!body.success || body.data === undefined) throw new Error(`${query}: ${JSON.stringify(body)}`);
  return body.data.results;
}

/** One table: each product asked each way, and the mean share of its top 10 naming it. */
async function table(products: readonly [string, RegExp][], phrasings: readonly string[]): Promise<void> {
  const sums = phrasings.map(() => 0);
  const rows: string[] = [];
  for (const [product, mentions] of products) {
    const cells: string[] = [];
    for (const [i, phrasing] of phrasings.entries()) {
      const found = await leads(phrasing.replace("{}", product));
      const naming = found.filter((l) => mentions.test(`${l.title} ${l.content}`)).length;
      sums[i]! += found.length === 0 ? 0 : naming / found.length;
      cells.push(`${naming}/${found.length}`);
    }
    rows.push(`| ${product} | ${cells.join(" | ")} |`);
  }
  console.log(`| product | ${phrasings.map((p) => `"${p.replace("{}", "X")}"`).join(" | ")} |`);
  console.log(`| --- | ${phrasings.map(() => "---").join(" | ")} |`);
  for (const row of rows) console.log(row);
  console.log(`| mean share naming the product | ${sums.map((s) => (s / products.length).toFixed(3)).join(" | ")} |`);
}

await table(PRODUCTS, PHRASINGS);
console.log();
await table(
  NAMED.map((name) => [name, new RegExp(name.replace(/ /g, "\\s*"), "i")]),
  SWITCHES,
);
