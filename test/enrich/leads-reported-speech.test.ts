/**
 * Other people's words in a post (src/enrich/leads/reported-speech.ts): dialogue transcripts and
 * quoted speech are left out of what the lead rules read, while field labels, quoted error
 * messages and inch marks stay the poster's; and storytelling forums are not leads. The real
 * posts come from ../shared/data/corpora at test time.
 */
import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { isTranscript, quotedSpeech, speakerOf } from "../../src/enrich/leads/reported-speech.js";
import { createRuleLeadClassifier } from "../../src/enrich/leads/rule-classifier.js";
import { sentencesOf } from "../../src/enrich/leads/text.js";
import { REDDIT_CSV_DIR, redditPost } from "../eval/corpus-posts.js";
import { hasData, SHARED_DATA } from "../eval/shared-data.js";
import { missingBackend } from "../harness/backend-policy.js";

test("speaker labels: turns of speech, not the fields of a form", () => {
  assert.equal(speakerOf("Me: Have you tried turning it off?"), "me");
  assert.equal(speakerOf("CALLER: I want to order something"), "caller");
  assert.equal(speakerOf("Front desk lady: It is broken"), "front desk lady");
  for (const line of [
    "Edit: fixed the link",
    "Budget: $800",
    "TL;DR: need a CRM",
    "Update 2: still broken",
    "So here is what I think of it: nothing",
  ]) {
    assert.equal(speakerOf(line), undefined, line);
  }
  assert.equal(isTranscript(["me", "user", "me", "user"]), true);
  assert.equal(isTranscript(["me", "user", "me"]), false, "one speaker with two turns is not a dialogue");
  assert.equal(isTranscript(["country", "use", "budget", "case", undefined]), false, "a form names each field once");
});

test("quoted speech: sentences said inside quotation marks, not the poster's phrases or measures", () => {
  assert.deepEqual(quotedSpeech(['"Sir, I cannot help you.', 'If you shout, I will hang up."', "He hung up first."]), [
    true,
    true,
    false,
  ]);
  assert.deepEqual(quotedSpeech(["\u201cCan you fix my printer?\u201d she asked.", "I said no."]), [true, false]);
  assert.deepEqual(
    quotedSpeech(['I get "Access denied" when I log in.', "Any ideas?"]),
    [false, false],
    "a quoted message inside the poster's sentence",
  );
  assert.deepEqual(
    quotedSpeech(['I have a 47" TV as a monitor.', "Which GPU should I get?"]),
    [false, false],
    "inches close no quotation",
  );
  assert.deepEqual(
    quotedSpeech(['I type a time such as "35:00" in column a.', "I'd like column c to show the pace."]),
    [false, false],
  );
  assert.deepEqual(
    quotedSpeech(['"Best CRM" lists are all ads, so what do you use?']),
    [false],
    "a quoted phrase opening an ask",
  );
  // reddit web_design qnkqy: a speaker's label before the quotation it introduces, with or without a space.
  assert.deepEqual(quotedSpeech(['Me:"I never got your e-mail, are these updates effecting e-mail as well?"']), [true]);
  assert.deepEqual(quotedSpeech(['Him: "uh, yeah.', 'I guess so."', "I just hung up."]), [true, true, false]);
  assert.deepEqual(
    quotedSpeech(['Error: "Access denied" whenever I log in from the office network.']),
    [false],
    "a label before a short quoted message",
  );
});

test("sentencesOf keeps the poster's own sentences, renumbered, title first", () => {
  const post = {
    title: "Worst call of the week",
    content: [
      "Me: What seems to be the problem?",
      "Caller: I want to buy a new computer.",
      "Me: Is it plugged in?",
      "Caller: Oh.",
      "",
      "Does anyone have a good ticketing system?",
    ].join("\n"),
  };
  assert.deepEqual(
    sentencesOf(post).map((s) => [s.index, s.text]),
    [
      [0, "Worst call of the week"],
      [1, "Does anyone have a good ticketing system?"],
    ],
  );
  const form = { title: "Gaming build", content: "Budget: $800\nCountry: US\nWhich GPU should I get?" };
  assert.equal(sentencesOf(form).length, 4, "a filled-in form is the poster's own");
});

const skip = hasData(REDDIT_CSV_DIR)
  ? false
  : missingBackend("data", `${REDDIT_CSV_DIR} not found under ${SHARED_DATA}`);
const classifier = createRuleLeadClassifier();
const classify = (ref: string) => {
  const [subreddit, id] = ref.split("/");
  return classifier.classify(redditPost(subreddit!, id!));
};

describe("reported speech and stories on real posts", { skip }, () => {
  // r/talesfromtechsupport: "I think I got a call from someone in r/trees" ("CALLER: Yeah, I want
  // to order something"), "Cheap Customer" ("I will pay you for the one minute you were here"),
  // "How to deal with the one-word email".
  for (const ref of ["talesfromtechsupport/zumgd", "talesfromtechsupport/18j7ni", "talesfromtechsupport/17fns6"]) {
    it(`${ref} is a story, not a lead`, () => {
      const d = classify(ref);
      assert.equal(d.leadType, "");
      assert.equal(d.rejectedAs, "story");
    });
  }
  // Outside storytelling forums the dialogue alone made these leads: "Trolling the IT guy" ("User:
  // I can't see your computer."), "When an IT guy has yard work to do" ("Me: What are you doing?").
  for (const ref of ["techsupport/f1nuu", "sysadmin/th9vo"]) {
    it(`${ref}: a retold dialogue asks nothing of the reader`, () => {
      const d = classify(ref);
      assert.equal(d.leadType, "");
    });
  }
  it("computertechs/kvv2p is read from the poster's question, not the customer's line", () => {
    const d = classify("computertechs/kvv2p");
    assert.equal(d.leadType, "advice_request");
    assert.match(d.evidence, /^What are some common misconceptions/);
  });
});
