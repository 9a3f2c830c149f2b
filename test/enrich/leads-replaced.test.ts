/**
 * The product a post wants replaced (replaced.ts) and what it does to target_product and the
 * opportunity. The sentences are titles and asks of the reddit, Hacker News and Stack Exchange
 * corpora, the misses and false answers read while the rule was written.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findTargetProduct } from "../../src/enrich/leads/product.js";
import { replacedName } from "../../src/enrich/leads/replaced.js";
import { createRuleLeadClassifier } from "../../src/enrich/leads/rule-classifier.js";
import { sentencesOf } from "../../src/enrich/leads/text.js";
import type { Post } from "../../src/model/post.js";

describe("replaced product", () => {
  it("reads the name after 'alternative to', 'replacement for' and 'switching from'", () => {
    assert.equal(replacedName("Ask HN: Alternatives to Team Viewer?"), "Team Viewer");
    assert.equal(replacedName("Alternatives to Gmail?"), "Gmail");
    assert.equal(replacedName("Looking for a cross-platform alternative to Skype. Video mandatory."), "Skype");
    assert.equal(replacedName("Is there a full-featured alternative to Adobe Acrobat?"), "Adobe Acrobat");
    assert.equal(
      replacedName("If you're still looking for a replacement for Google Reader, try this"),
      "Google Reader",
    );
    assert.equal(replacedName("Thinking of switching from Eclipse to IntelliJ IDEA"), "Eclipse");
    assert.equal(
      replacedName("We are looking to move away from Zend, but still staying with the existing stack."),
      "Zend",
    );
  });

  it("reads the name before 'alternatives', even opening the sentence, but not an adjective there", () => {
    assert.equal(replacedName("Skype alternatives for Linux?"), "Skype");
    assert.equal(replacedName("Ask HN: Mailbox alternatives for OS X?"), "Mailbox");
    assert.equal(replacedName("Any good Market Samurai alternatives for keyword research?"), "Market Samurai");
    assert.equal(replacedName("Decentralized alternative to Twitter"), "Twitter");
    assert.equal(replacedName("Cheap alternative to Performable"), "Performable");
  });

  it("spells gazetteer names its way, in any case", () => {
    assert.equal(replacedName("alternative to hootsuite?"), "Hootsuite");
    assert.equal(replacedName("Good Paypal alternatives?"), "PayPal");
    assert.equal(replacedName("Looking For An Alternative To Google Drive"), "Google Drive");
  });

  it("finds no name where capitals say nothing: title case, modifiers of a common noun, careers", () => {
    assert.equal(replacedName("Alternatives To Hiring A Developer Full Time"), "");
    assert.equal(replacedName("Alternatives to Credit Rating Agency Cartel"), "");
    assert.equal(replacedName("Alternatives to the H-1B visa"), "");
    assert.equal(replacedName("Switching from a Canadian corporation to a Canadian sole-proprietorship"), "");
    assert.equal(replacedName("Switching from Full Time to Contract, finding a business mentor"), "");
    assert.equal(replacedName("we need to add your domain via SAN (Subject Alternative Name)"), "");
    assert.equal(replacedName("Is there an alternative to paying for this?"), "");
    assert.equal(replacedName("UK alternative to geeks.com"), "");
  });

  it("does not read a story or a comparison as a wish to replace", () => {
    assert.equal(replacedName("I switched from a GNex to an iPhone 5"), "");
    assert.equal(replacedName("Before the switch from Windows, I could play tf2 well."), "");
    assert.equal(replacedName("Contractors Vs Employees"), "");
    assert.equal(replacedName("Education through Coursera instead of a University?"), "");
  });
});

describe("target product of a post that wants a product replaced", () => {
  const post = (title: string, content = ""): Post => ({
    id: "t:1",
    source: "test",
    nativeId: "1",
    title,
    content,
    subforum: "hackernews",
    author: "",
    upvotes: 0,
    comments: 0,
    created: 0,
    url: "",
  });

  it("is the replaced product, not a gazetteer name elsewhere in the sentence", () => {
    const s = sentencesOf(post("Skype alternatives for Linux?"));
    assert.deepEqual(findTargetProduct(s, s[0]), { name: "Skype", named: true, replacing: true });
  });

  it("is the title's replaced product even when the focus sentence names it plainly", () => {
    const s = sentencesOf(
      post("Alternatives to Hootsuite?", "A colleague is looking for social media tool options aside from Hootsuite."),
    );
    assert.deepEqual(findTargetProduct(s, s[1]), { name: "Hootsuite", named: true, replacing: true });
    // Without the cue in the title, the focus sentence's product is named, not replaced.
    const t = sentencesOf(post("Social media tools?", "A colleague on Hootsuite is looking for other options."));
    assert.deepEqual(findTargetProduct(t, t[1]), { name: "Hootsuite", named: true, replacing: false });
  });

  it("names the chat a site offers its visitors as live chat software", () => {
    const s = sentencesOf(post("What is the best web site chat provider to use?"));
    assert.equal(findTargetProduct(s, s[0]).name, "live chat software");
  });

  it("is the category when the replaced name is one ('VPS alternatives')", () => {
    const s = sentencesOf(post("VPS alternatives that are reliable and have little downtime"));
    assert.deepEqual(findTargetProduct(s, s[0]), { name: "web hosting", named: false, replacing: true });
  });

  it("makes the opportunity an alternative whatever the ask", () => {
    const leads = createRuleLeadClassifier();
    const d = leads.classify(
      post(
        "Alternatives to Hootsuite?",
        "A colleague has been looking for social media management tool options aside from Hootsuite. Any thoughts?",
      ),
    );
    assert.notEqual(d.leadType, "");
    assert.equal(d.targetProduct, "Hootsuite");
    assert.equal(d.opportunity, "an alternative to Hootsuite, with migration help");
  });
});
