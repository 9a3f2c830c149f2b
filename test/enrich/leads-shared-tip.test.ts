/**
 * Shared how-tos, tips and announcements (isSharedTip, src/enrich/leads/false-positives.ts): the
 * problems and purchases they tell of are the poster's material, so they are no leads, unless the
 * post puts a question to its readers. Real posts come from ../shared/data/corpora at test time.
 */
import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { isSharedTip } from "../../src/enrich/leads/false-positives.js";
import { createRuleLeadClassifier } from "../../src/enrich/leads/rule-classifier.js";
import type { Post } from "../../src/model/post.js";
import { REDDIT_CSV_DIR, redditPost } from "../eval/corpus-posts.js";
import { hasData, SHARED_DATA } from "../eval/shared-data.js";
import { missingBackend } from "../harness/backend-policy.js";

function post(title: string, content: string): Post {
  return {
    id: "t:1",
    source: "test",
    nativeId: "1",
    title,
    content,
    subforum: "buildapc",
    author: "",
    upvotes: 0,
    comments: 0,
    created: 0,
    url: "",
  };
}

const classifier = createRuleLeadClassifier();

test("titles of shared tips: tags, and 'How I' with a past tense", () => {
  for (const title of [
    "[Guide] Building a small form factor PC",
    "Protip: Install Windows Using Flash Drive",
    "PSA - Got thermal paste on your hands?",
    "LPT: Call up to cancel your credit card",
    "[Tutorial] Sets in Python",
    "My guide on how to clean your keyboard",
    "How I sped up my Python code 47 times",
    "How I got out of my Sprint contract",
    "How I built my first PC",
  ]) {
    assert.equal(isSharedTip(post(title, "")), true, title);
  }
  for (const title of [
    "Tutorial for advanced queries using active record",
    "Guide on writing a good business plan?",
    "How I update and shut down Ubuntu.",
    "How I wish Instagram took larger photos",
    "How can I speed up my code?",
    "Tips for being a landlord",
  ]) {
    assert.equal(isSharedTip(post(title, "")), false, title);
  }
});

test("a list is shared when its opening presents it, and asked for when it does not", () => {
  assert.equal(
    isSharedTip(
      post(
        "A collection of design inspiration and resources.",
        "Here are my graphic design bookmarks. I'd love to see yours as well!",
      ),
    ),
    true,
  );
  assert.equal(
    isSharedTip(
      post("List of interactive programming websites", "Here is a list of interactive programming websites."),
    ),
    true,
  );
  assert.equal(
    isSharedTip(
      post(
        "List of Online Shop Software closely tied to Paypal",
        "i want to gather a list of online shop software that is closely tied to paypal.",
      ),
    ),
    false,
  );
});

test("a shared tip is no lead for the trouble it tells of, but is one for a question to its readers", () => {
  const told = post(
    "PSA: Don't buy the X200 router",
    "Mine kept dropping the connection every hour and support never answered. Save yourself the frustration.",
  );
  const d = classifier.classify(told);
  assert.deepEqual([d.leadType, d.rejectedAs], ["", "shared_tip"]);
  // The same trouble without the tag is a pain point, so the tag is what rules it out.
  assert.equal(classifier.classify(post("Don't buy the X200 router", told.content)).leadType, "pain_point");
  const asked = post(
    "[Guide] Painting a PC case",
    "Here is how I painted mine. Does anyone know a good matte spray paint for the final coat?",
  );
  assert.notEqual(classifier.classify(asked).leadType, "");
});

const skip = hasData(REDDIT_CSV_DIR)
  ? false
  : missingBackend("data", `${REDDIT_CSV_DIR} not found under ${SHARED_DATA}`);
const classify = (ref: string) => {
  const [subreddit, id] = ref.split("/");
  return classifier.classify(redditPost(subreddit!, id!));
};

describe("shared tips on real posts", { skip }, () => {
  // "How I built my first PC", "Quick tip: If you need to test in older versions of IE, use the
  // real browsers", "[PSA] Don't get an ASRock Z77 Extreme4!", "[Guide] Building a small form
  // factor PC", "[Tutorial] Easy way to pack a program into a single exe file": leads before the rule.
  // "A collection of design inspiration and resources." ("Here are my graphic design bookmarks
  // ... I'd love to see yours as well!", a solution_request scored 100 before).
  for (const ref of [
    "buildapc/z4fcu",
    "webdev/13lxk9",
    "buildapc/1enn0h",
    "buildapc/1h3yef",
    "learnpython/yjt8m",
    "Design/szz0t",
  ]) {
    it(`${ref} shares what the poster did, not a need`, () => {
      const d = classify(ref);
      assert.deepEqual([d.leadType, d.rejectedAs], ["", "shared_tip"]);
    });
  }
  // "How I update and shut down Ubuntu." asks "is this good practice?"; "Tutorial for advanced
  // queries using active record" asks for one.
  for (const [ref, type] of [
    ["linuxquestions/hv6ya", "advice_request"],
    ["rails/tsvjo", "solution_request"],
  ] as const) {
    it(`${ref} is still a ${type}`, () => {
      assert.equal(classify(ref).leadType, type);
    });
  }
});
