import assert from "node:assert/strict";
import { test } from "node:test";
import { extractiveSummary, isQuestion, RELATIVE_FLOOR } from "../../src/core/summary/extractive.js";

const results = [
  {
    title: "How should I price my SaaS?",
    subforum: "startups",
    content:
      "We charge per seat right now. Pricing per seat punishes teams that grow, so we are thinking about usage-based pricing instead. Any experience with that?",
  },
  {
    title: "Value-based pricing worked for us",
    subforum: "SaaS",
    content:
      "We moved from cost-plus to value-based pricing and revenue per customer doubled. The key was interviewing customers about what the product saves them.",
  },
  {
    title: "Unrelated: best coffee in Berlin",
    subforum: "berlin",
    content: "Looking for a quiet cafe with good wifi near Mitte. Preferably one that opens early.",
  },
];

test("the summary answers from the results, cites only existing results, and is 2-4 sentences", () => {
  const s = extractiveSummary("how to price a SaaS product", results);
  const cited = [...s.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  assert.ok(cited.length >= 1, s);
  assert.ok(
    cited.every((n) => n >= 1 && n <= results.length),
    s,
  );
  assert.ok(!cited.includes(3), "the off-topic result is not quoted");
  const sentenceCount = s.split(/(?<=[.!?])\s+(?=[A-Z])/).length;
  assert.ok(sentenceCount >= 2 && sentenceCount <= 4, `${sentenceCount}: ${s}`);
  assert.match(s, /pric/i);
});

test("a result scoring far below the first is not quoted, however many query words it shares", () => {
  // The seventh result shares the query's rarest words; the first two share fewer but are what
  // the search found relevant. Relevances as SemanticSearch returns them (0..1, ranked).
  const ranked = [
    {
      title: "Proof point on why resumes are not an effective way to hire engineers",
      subforum: "hackernews",
      content: "We hired three engineers last year and none of the resumes predicted who did well.",
      relevance: 0.71,
    },
    {
      title: "Hiring and Retention Problem",
      subforum: "hackernews",
      content: "Our first hires left within a year and we still do not know why.",
      relevance: 0.686,
    },
    {
      title: "Can we make consciousness into an engineering problem?",
      subforum: "hackernews",
      content: "Problems with first engineering principles of hiring the mind, a first engineer problem.",
      relevance: 0.414,
    },
  ];
  const query = "problems with hiring first engineer";
  const cut = extractiveSummary(query, ranked);
  assert.ok(0.414 < RELATIVE_FLOOR * 0.71, "the third result lies below the floor");
  assert.doesNotMatch(cut, /\[3\]/, cut);
  assert.match(cut, /\[1\]/, cut);
  // Without relevances (or with the floor at 0) every result is read, and the third is quoted:
  // the test shows the floor, not the sentence scoring, keeps it out.
  const unscored = ranked.map(({ relevance: _, ...r }) => r);
  assert.match(extractiveSummary(query, unscored), /\[3\]/);
  assert.match(extractiveSummary(query, ranked, { relativeFloor: 0 }), /\[3\]/);
});

test("when the results above the floor give nothing to quote, every result read is quoted from", () => {
  // A link post's bare title (too short to quote) far ahead of posts that discuss the query.
  const ranked = [
    { title: "Angular 2 versus React", subforum: "hackernews", content: "", relevance: 1 },
    {
      title: "Google Trends: React.js has surpassed Angular.js",
      subforum: "hackernews",
      content: "Opinions on React versus Angular have shifted: React is now searched for more often than Angular.",
      relevance: 0.36,
    },
  ];
  const query = "opinions on react vs angular";
  assert.ok(0.36 < RELATIVE_FLOOR * 1, "the second result lies below the floor");
  const s = extractiveSummary(query, ranked);
  assert.match(s, /\[2\]/, s);
  assert.doesNotMatch(s, /The closest are/, s);
  // Without the fallback the floor leaves only the titles to cite.
  assert.match(extractiveSummary(query, ranked, { fallback: false }), /The closest are/);
});

test("no results gives a summary that says nothing matched", () => {
  assert.match(extractiveSummary("quantum bakeries", []), /^No discussions matched "quantum bakeries"/);
});

test("results without usable sentences fall back to citing titles", () => {
  const s = extractiveSummary("crm", [{ title: "CRM?", subforum: "smallbusiness", content: "" }]);
  assert.match(s, /\[1\]/);
});

test("a second sentence of the post just quoted is framed as that post's, in its own order", () => {
  // The first result answers the query twice; the others hardly at all, so two of its sentences
  // are quoted.
  const posts = [
    {
      title: "How essential is a CRM for an agency?",
      subforum: "startups",
      content:
        "I am starting a digital marketing agency and reading about CRM tools. Which CRM is best for a small agency that needs client logins? Any open-source CRM for a small agency with powerful features?",
    },
    {
      title: "Weekend plans",
      subforum: "berlin",
      content: "Going hiking in the mountains this weekend with some friends from the office.",
    },
  ];
  const s = extractiveSummary("best CRM for a small agency", posts);
  const quoted = [
    ...s.matchAll(
      /(One post (?:says|asks)|Another (?:adds|asks)|A third (?:notes|asks)|The same post (?:adds|asks)|It goes on(?: to ask)?): "([^"]+)" \[(\d+)\]/g,
    ),
  ].map((m) => ({ lead: m[1]!, text: m[2]!, cited: Number(m[3]) }));
  assert.ok(quoted.length >= 2, s);
  quoted.forEach((q, i) => {
    const previous = quoted[i - 1];
    const continues = q.lead.startsWith("The same post") || q.lead.startsWith("It goes on");
    assert.equal(continues, previous?.cited === q.cited, s);
  });
  const ofFirst = quoted.filter((q) => q.cited === 1).map((q) => posts[0]!.content.indexOf(q.text.slice(0, 30)));
  assert.ok(ofFirst.length >= 2, s);
  assert.deepEqual(
    ofFirst,
    [...ofFirst].sort((a, b) => a - b),
    `quoted in the post's order: ${s}`,
  );
});

test("a question is quoted as one: 'asks', its words as written (no mark added)", () => {
  const posts = [
    { title: "How to find a technical cofounder without the university network", subforum: "startups", content: "" },
    {
      title: "Finding a technical cofounder took me a year",
      subforum: "startups",
      content: "I found my technical cofounder at a local hackathon after months of meetups.",
    },
  ];
  const s = extractiveSummary("how to find a technical cofounder", posts);
  assert.match(
    s,
    /(?:One post|Another) asks: "How to find a technical cofounder without the university network" \[1\]/,
    s,
  );
  assert.match(
    s,
    /(?:(?:One post says|Another adds): "I found|(?:One post|Another) is titled: "Finding)[^"?]+" \[2\]/,
    s,
  );
  assert.doesNotMatch(s, /(?:says|adds|notes): "[^"]*\?"/, s);
});

test("a headline title is quoted as a title, not as something the post says", () => {
  const posts = [
    { title: "How should I price our SaaS for resellers?", subforum: "onstartups", content: "" },
    { title: "Pricing strategy for SaaS based products", subforum: "onstartups", content: "" },
    { title: "We doubled our SaaS price and lost no customers.", subforum: "startups", content: "" },
  ];
  const s = extractiveSummary("how do you price a SaaS product", posts);
  assert.match(s, /Another is titled: "Pricing strategy for SaaS based products" \[2\]/, s);
  assert.match(s, /A third notes: "We doubled our SaaS price and lost no customers" \[3\]/, s);
});

test("questions are told from statements by their mark or their opening word", () => {
  assert.equal(isQuestion("Is e-filing enough?"), true);
  assert.equal(isQuestion("What is a good small business CRM"), true);
  assert.equal(isQuestion("Anyone using Xero for a bakery"), true);
  assert.equal(isQuestion("We moved to value-based pricing."), false);
  assert.equal(isQuestion("Templates for SaaS pricing"), false);
  assert.equal(isQuestion("What I did so far: I listed it on a marketplace and priced it from my costs."), false);
  // A question word opening a headline's clause, its subject straight after it: no question.
  assert.equal(isQuestion("Why I got Fired from Facebook (a $100M dollar lesson)"), false);
  assert.equal(isQuestion("How we doubled our SaaS price"), false);
  assert.equal(isQuestion("What you need to know about GDPR"), false);
  assert.equal(isQuestion("Why do I keep losing trial users"), true);
  assert.equal(isQuestion("How can we price a SaaS product"), true);
  // A named subject straight after the question word: a headline, unless an auxiliary asks later.
  assert.equal(isQuestion("What MongoDB Got Right"), false);
  assert.equal(isQuestion("How Dropbox sacrifices user privacy for cost savings"), false);
  assert.equal(isQuestion("Why the Tor attack matters"), false);
  assert.equal(isQuestion("How long do I have to pass CCNP Security"), true);
  assert.equal(isQuestion("What CRM do you use for a small team"), true);
  assert.equal(isQuestion("how important is a name and where to start"), true);
  assert.equal(isQuestion("How much to charge for a logo"), true);
  assert.equal(isQuestion("What's the best CRM for a bakery"), true);
  assert.equal(isQuestion("Which CRM for a small team"), true);
  assert.equal(isQuestion("Have your own mini heroku-like service"), false);
  assert.equal(isQuestion("Have you tried Heroku for a Rails app"), true);
});

test("a short title naming the subject is quoted: what a link post says of it", () => {
  const posts = [
    { title: "What MongoDB Got Right", subforum: "hackernews", content: "", relevance: 0.92 },
    { title: "Don't use MongoDB", subforum: "programming", content: "", relevance: 0.91 },
    { title: "Summarizing service for Mongodb log files", subforum: "hackernews", content: "", relevance: 0.85 },
    { title: "Unrelated but short", subforum: "hackernews", content: "", relevance: 0.84 },
  ];
  const s = extractiveSummary("what do developers think of mongodb", posts);
  assert.match(s, /is titled: "What MongoDB Got Right" \[1\]/, s);
  assert.match(s, /is titled: "Don't use MongoDB" \[2\]/, s);
  // Short and naming no query term: not quoted.
  assert.doesNotMatch(s, /\[4\]/, s);
  // Short with one word of its own ("versus"): it says nothing the query did not.
  assert.doesNotMatch(
    extractiveSummary("react vs angular", [{ title: "Angular 2 versus React", subforum: "hackernews", content: "" }]),
    /titled/,
  );
});

test("a sentence naming nothing asked about is not quoted, however high its post ranks", () => {
  const posts = [
    {
      title: "Thinking about dropping it for my store",
      subforum: "freelance",
      content:
        "The title pretty much sums it up. PayPal holds my funds for 21 days after every sale and support never answers.",
      relevance: 1,
    },
    {
      title: "Paypal froze our account",
      subforum: "hackernews",
      content: "They froze the account of our nonprofit without warning.",
      relevance: 0.9,
    },
  ];
  const s = extractiveSummary("problems with paypal", posts);
  assert.doesNotMatch(s, /sums it up/, s);
  assert.doesNotMatch(s, /dropping it/, s);
  assert.match(s, /PayPal holds my funds/, s);
  assert.match(s, /\[2\]/, s);
});

test("a quote keeps its words and its own question mark, and gains none", () => {
  const posts = [
    { title: "What Mailchimp does to make sure emails get delivered", subforum: "hackernews", content: "" },
    { title: "Is Mailchimp worth it for a tiny list??", subforum: "marketing", content: "" },
  ];
  const s = extractiveSummary("mailchimp", posts);
  assert.match(s, /"What Mailchimp does to make sure emails get delivered" \[1\]/, s);
  assert.match(s, /asks: "Is Mailchimp worth it for a tiny list\?" \[2\]/, s);
});
