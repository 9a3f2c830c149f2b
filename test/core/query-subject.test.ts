import assert from "node:assert/strict";
import { test } from "node:test";
import { querySubject } from "../../src/core/query-subject.js";
import { extractiveSummary } from "../../src/core/summary/extractive.js";

test("an opinion question is searched for its subject", () => {
  const cases: [string, string][] = [
    ["What are people saying about PadMapper?", "PadMapper"],
    ["what do users think of QuickBooks Online", "QuickBooks Online"],
    ["How do people feel about remote work?", "remote work"],
    ["what's the general sentiment around bitcoin?", "bitcoin"],
    ["What are people's views on coworking spaces", "coworking spaces"],
    ["what do you guys think of Shopify", "Shopify"],
    ["Opinions on Grant Thornton?", "Grant Thornton"],
    ["any thoughts about  Mailchimp pricing", "Mailchimp pricing"],
    ["experiences with Stripe", "Stripe"],
  ];
  for (const [query, subject] of cases) assert.equal(querySubject(query), subject, query);
});

test("other queries, and frames with nothing after them, are used as written", () => {
  for (const query of [
    "problems with QuickBooks",
    "views on my blog dropped",
    "how do I find my first customers",
    "what are people saying about",
    "thoughts on ?",
    "people saying CRM is dead",
  ]) {
    assert.equal(querySubject(query), query);
  }
});

test("the summary scores an opinion question on its subject, not on its frame's words", () => {
  const results = [
    {
      title: "Mailchimp raised its prices again",
      subforum: "marketing",
      content: "Our Mailchimp bill went from 30 to 75 dollars a month for the same list.",
      relevance: 1,
    },
    {
      title: "It's okay to not have an opinion about everything",
      subforum: "hackernews",
      content: "People feel they must hold opinions on every topic, and saying so is rarely welcome.",
      relevance: 0.9,
    },
    {
      title: "Moving our newsletter off Mailchimp",
      subforum: "startups",
      content: "We moved 40,000 subscribers from Mailchimp to a cheaper sender without losing opens.",
      relevance: 0.85,
    },
  ];
  const s = extractiveSummary("what are people saying about Mailchimp", results);
  assert.match(s, /\[1\]/, s);
  assert.match(s, /\[3\]/, s);
  assert.doesNotMatch(s, /\[2\]/, s);
});
