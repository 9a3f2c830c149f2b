/**
 * The subject of a FindLeads query (src/core/lead-query.ts): the ask's frame goes, whatever it is
 * for stays, and a query that is all frame, or has none, is kept as written.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { leadQuerySubject } from "../../src/core/lead-query.js";

describe("leadQuerySubject", () => {
  it("drops the frame of an ask", () => {
    const cases: [string, string][] = [
      ["looking for a project management tool", "project management tool"],
      ["I'm looking for some good accounting software?", "accounting software"],
      ["searching for a reliable web host", "web host"],
      ["need a payroll software", "payroll software"],
      ["we need help with bookkeeping", "bookkeeping"],
      ["need help finding a lawyer", "lawyer"],
      ["want to buy a domain", "domain"],
      ["looking to hire a developer", "developer"],
      ["I need to hire an accountant", "accountant"],
      ["can anyone recommend a CRM", "CRM"],
      ["could you please suggest an invoicing app", "invoicing app"],
      ["any recommendations for a help desk", "help desk"],
      ["who needs a website builder", "website builder"],
      ["people looking for a logo designer", "logo designer"],
      ["businesses in need of bookkeeping", "bookkeeping"],
      ["what is the best crm for startups", "crm for startups"],
      ["  looking   for   a    crm  ", "crm"],
    ];
    for (const [query, subject] of cases) assert.equal(leadQuerySubject(query), subject, query);
  });

  it("keeps what a switch is away from", () => {
    const cases: [string, string][] = [
      ["alternative to mailchimp", "mailchimp"],
      ["alternatives for QuickBooks?", "QuickBooks"],
      ["a cheaper replacement for Basecamp", "Basecamp"],
      ["competitors of salesforce", "salesforce"],
      ["switching from godaddy", "godaddy"],
      ["we're moving away from heroku to aws", "heroku to aws"],
      ["migrating off of wordpress", "wordpress"],
      ["replace zendesk", "zendesk"],
      ["zendesk alternatives", "zendesk"],
      ["google analytics alternative?", "google analytics"],
      // an ask's frame first, then the switch
      ["looking for an alternative to trello", "trello"],
      ["can anyone recommend a replacement for evernote", "evernote"],
      ["what is the best alternative to skype", "skype"],
      ["need a dropbox alternative", "dropbox"],
    ];
    for (const [query, subject] of cases) assert.equal(leadQuerySubject(query), subject, query);
  });

  it("keeps a query with no frame, or with nothing after it, as written", () => {
    for (const query of [
      "crm",
      "payroll software for a small team",
      "looking for",
      "need",
      "looking forward",
      "needs assessment tools",
      "stripe vs paypal",
      "what do people think of hubspot",
      "alternative energy",
      "alternatives",
      "leave management software",
      "our competitors",
      "alternative to",
    ]) {
      assert.equal(leadQuerySubject(query), query);
    }
  });
});
