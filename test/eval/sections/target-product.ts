/**
 * `target_product` against hand labels: 314 leads of the reddit 2013, Hacker News and Stack
 * Exchange corpora, labelled for this project (test/eval/labels/target-product.tsv: post id and
 * the values a reader would accept; no post text is stored). Posts are read with the ingest readers and enriched as
 * ingest does (embedding, sentiment, then the lead rules), so the focus sentence is the one
 * ingest would pick.
 *
 * Three splits, each drawn at random from the leads by a hash of the id: `dev` was read while the
 * rule was changed; `test` was labelled afterwards, before either rule's answers on it were seen
 * (how often it has been scored since is stated in the report); `replace` holds only leads that
 * say they want something replaced, where the replaced-product rule (replaced.ts) acts;
 * `precedence` only leads naming both a listed product and a kind of thing in one sentence.
 */
import { postEmbeddingText } from "../../../src/enrich/embed-text.js";
import { createLeadClassifier, type LeadDecision } from "../../../src/enrich/leads/classifier.js";
import { findTargetProduct } from "../../../src/enrich/leads/product.js";
import { sentencesOf } from "../../../src/enrich/leads/text.js";
import { sentimentText } from "../../../src/enrich/post-enricher.js";
import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import type { Post } from "../../../src/model/post.js";
import { embedCached } from "../embedding-cache.js";
import { fmt, table } from "../format.js";
import { LABELLED_CORPORA, type Label, labelledPosts, loadLabels } from "../labelled-posts.js";
import type { EvalContext, EvalSection } from "../section.js";

/** Today's rule without reading what a post wants replaced (replaced.ts, added 2026-11-25). */
function withoutReplaced(post: Post, focusText: string): string {
  const sentences = sentencesOf(post);
  return findTargetProduct(
    sentences,
    sentences.find((s) => s.text === focusText),
    undefined,
    { replaced: false },
  ).name;
}

/**
 * What the rule did before 2026-11-23, with today's patterns: the focus sentence, then every
 * sentence of the post in order (the title first).
 */
function everySentence(post: Post, focusText: string): string {
  const sentences = sentencesOf(post);
  const focus = sentences.find((s) => s.text === focusText);
  for (const s of focus ? [focus, ...sentences] : sentences) {
    const hit = findTargetProduct([s], s).name;
    if (hit) return hit;
  }
  return "";
}

interface Tally {
  n: number;
  /** Non-empty answers, and those a label accepts. */
  answered: number;
  answeredRight: number;
  /** Posts whose label does not accept "" (they are about a product), and those answered right. */
  productPosts: number;
  productRight: number;
}

function tally(labels: readonly Label[], answer: (l: Label) => string): Tally {
  const t = { n: labels.length, answered: 0, answeredRight: 0, productPosts: 0, productRight: 0 };
  for (const l of labels) {
    const a = answer(l).toLowerCase();
    const ok = l.accepted.has(a);
    if (a !== "") {
      t.answered++;
      if (ok) t.answeredRight++;
    }
    if (!l.accepted.has("")) {
      t.productPosts++;
      if (ok) t.productRight++;
    }
  }
  return t;
}

const ratio = (a: number, b: number): string => (b === 0 ? "-" : fmt(a / b));

export const targetProductSection: EvalSection = {
  id: "target-product",
  title: "Target product (hand-labelled leads)",
  method:
    'Hand-labelled leads of the three corpora, each label listing every answer a reader would accept ("" for a post about no product). Precision is over the leads given a product, recall over the posts about one. dev was read while the rule was shaped; test and the later splits were drawn and labelled after, and are only reported.',
  decisions: ["0025-target-product-from-a-gazetteer.md"],
  requires: LABELLED_CORPORA.map(([file]) => file),
  async run(ctx: EvalContext) {
    const labels = loadLabels("target-product.tsv");
    const ordered = await labelledPosts(labels);
    const posts = new Map(ordered.map((p) => [p.id, p]));
    const vectors = await embedCached("target-product", ordered.map(postEmbeddingText));
    const sentiment = createSentimentClassifier();
    const leads = createLeadClassifier();
    const decisions = new Map<string, LeadDecision>();
    ordered.forEach((post, i) =>
      decisions.set(post.id, leads.classify(post, vectors[i], sentiment.classifyOne(sentimentText(post), vectors[i]!))),
    );
    // Labels were drawn from leads of the rules alone; a post the full pipeline does not call a lead has no target_product.
    const scored = labels.filter((l) => decisions.get(l.id)!.leadType !== "");
    ctx.recordData(
      "Target-product labels (hand, this project)",
      labels.length,
      `${labels.length - scored.length} not leads in the full pipeline, left out`,
    );

    const rows: string[][] = [];
    let testFigure: Tally | undefined;
    for (const split of ["dev", "test", "replace", "precedence"]) {
      const set = scored.filter((l) => l.split === split);
      const rules: [string, (l: Label) => string][] = [
        ["focus sentence, then title (ours)", (l) => decisions.get(l.id)!.targetProduct],
        [
          "the same, without the replaced product",
          (l) => withoutReplaced(posts.get(l.id)!, decisions.get(l.id)!.evidence),
        ],
        ["focus sentence, then every sentence", (l) => everySentence(posts.get(l.id)!, decisions.get(l.id)!.evidence)],
        ['baseline: always ""', () => ""],
      ];
      for (const [name, answer] of rules) {
        const t = tally(set, answer);
        if (split === "test" && name.endsWith("(ours)")) testFigure = t;
        rows.push([
          split,
          String(t.n),
          name,
          `${t.answered} (${ratio(t.answered, t.n)})`,
          ratio(t.answeredRight, t.answered),
          `${ratio(t.productRight, t.productPosts)} of ${t.productPosts}`,
        ]);
      }
    }
    const t = testFigure!;
    ctx.recordGoal(
      "target_product on hand-labelled leads, test split (no target)",
      `precision ${ratio(t.answeredRight, t.answered)}, recall ${ratio(t.productRight, t.productPosts)}`,
      undefined,
    );
    return [
      'Each label lists the answers a reader would accept for the post ("" too when it is about no',
      "product in particular: a career question, a story, a news link). Answered = leads given a",
      "non-empty target_product; precision = the share of those a label accepts; recall = of the",
      'posts that are about a product ("" not accepted), the share answered right. Most leads are',
      "about no product, so an empty answer is usually right and a wrong product is the error a user",
      "sees; the misses are mostly products outside the gazetteer (a gaming PC, Swype, a torrent",
      "client). The labels were written by one",
      "person for this project, reading title and opening of each post; the dev split was read",
      "while the rule was changed to stop reading past the focus sentence and the title and to",
      'tighten loose patterns ("accounting", "switch", "shipping", "phone", lowercase',
      '"windows"/"outlook"/"excel"); the test split was drawn and labelled after that. It has been',
      "scored five times: after that change (precision 0.625, recall 0.400); after product kinds were",
      'allowed in the plural ("hosting providers", "payment processors"); after the accounting pattern',
      'took back phrasings the tightening had lost ("what software do you use for accounting"); and after',
      'a sentence opening with "shipping" and monitoring tools were added (our rule\'s figures were the',
      "same in the last three: precision 0.647, recall 0.400). A fifth run (the rows below) followed a",
      'change to the self-promotion rule, which took one labelled test post out of the leads ("Used',
      'SquareSpace to make my new portfolio site. What do you guys think?", answered right before);',
      "no answer of the rule changed. The later changes came from reading the whole corpora's changed",
      "answers and FindLeads results, not the test split.",
      "",
      "The `replace` split (2026-11-25) is for the rule that reads what a post wants replaced, the name",
      'next to "alternative(s)", "replacement", "substitute for", "switching from" or "moving away from",',
      'in the gazetteer or written as a name ("Alternatives to Team Viewer?", "Skype alternatives for',
      'Linux?", which answered Linux before), in the focus sentence, else in the title, before any product',
      "named there. Reading FindLeads answers found the gap; the rule was then shaped by reading every",
      "answer it changed over the corpora's 42,313 leads (91 changed; by the writer's reading 67 right",
      'where the answer had been wrong or empty, 8 wrong, 16 neither), which is why "vs", "clone",',
      '"instead of", the verb "replace", the past tense and capitalised runs before a common noun are',
      "left out. The split is 60 leads drawn by a hash of the id from the 409 whose title or focus",
      "sentence carries one of those words (all three corpora, Hacker News included), labelled from title",
      "and focus sentence with no answer shown; 14 of them were among the 91 changed answers read before.",
      "It has been scored twice: after the rule above (precision 0.800, recall 0.593), and after a second",
      "change (the rows below): seven gazetteer names (Gmail, Hotmail, Yahoo Mail, Google Docs, Skype,",
      "TeamViewer, WhatsApp; 98 answers changed over the corpora, by the same reading about 70 right, 20",
      "a name met in passing, 8 neither), a title's replaced product before the focus sentence's named",
      'one ("Alternatives to Hootsuite?" asking for "options aside from Hootsuite"), and site chat as live',
      "chat software. dev holds no post these rules touch; the test split's seventh scoring, after the",
      "second change, has one more answer and it is wrong (precision 0.625 -> 0.588, recall unchanged).",
      'An eighth, after "payment solution/system/provider" joined payment processing and time tracking',
      "became a category (from FindLeads answers; 24 answers changed over the corpora), moved no figure.",
      "Nor did a ninth, after a change of precedence: a listed product no longer wins over the kind of",
      'thing the sentence asks for when that comes first ("a CRM that syncs with Gmail") or right after a',
      'platform\'s name ("a cheap Windows VPS", "a Linux laptop"); broad kinds (website, plugin, library,',
      "developer, logo) never displace a name. 99 answers changed over the corpora; by the writer's reading",
      'about 64 right where the old answer was not, 10 wrong ("Windows Firewall" as network equipment), the',
      "rest neither. The `precedence` split measures it: 50 leads drawn by a hash of the id from the 427",
      "whose title or focus sentence names both a listed product and a kind of thing, labelled after the",
      "change from title and focus sentence with no answer shown (11 of them were among the 99 changed",
      "answers read before). The rule before the change, run on it from its commit with the same labels:",
      "precision 0.740, recall 0.750; that run: 0.820 and 0.844. A tenth scoring of test (and the",
      'second of precedence), after "ecommerce" alone stopped naming an ecommerce platform ("an',
      'ecommerce business", "ecommerce fulfillment companies": 45 answers changed over the corpora, 28 of',
      'them to "") and fulfillment companies in the plural became a shipping service, moved no figure;',
      'nor did an eleventh after the shipping pattern learnt the US spelling ("fulfillment": it matched only',
      '"fulfilment" before; 8 answers or industries changed over the corpora), nor a twelfth after note-taking',
      "apps and expense tracking became categories (9 answers changed, none of them labelled).",
      "A thirteenth (the rows below) followed two changes to what counts as a lead: posts of storytelling",
      "forums (r/talesfromtechsupport) are not leads, and the rules no longer read retold dialogue or",
      "quoted speech. Seven labelled posts, all tales from tech support, left the leads: 2 of dev, 4 of",
      'test (three answered "" rightly, one "laptop" wrongly, hence precision 0.588 -> 0.625) and 1',
      'of precedence (answered "laptop", which its label accepts: precision there 0.820 -> 0.816); no',
      "answer of a post still scored changed. A fourteenth (the rows below; the sixth of precedence)",
      'followed a precedence across sentences, from FindLeads answers ("Buying a New Laptop. Any',
      'Suggestions?" answered Ubuntu, named in its ask): a platform named in the focus sentence',
      "(Windows, Linux, Ubuntu, iPhone, WordPress, ...) yields to a kind of thing the title names. 31",
      "answers changed over the corpora; by the writer's reading 19 right where the old one was not, 7",
      "wrong (an operating system chosen for a laptop read as the laptop), 5 neither. dev and test did",
      "not move; precedence went from 0.816 and 0.844 to 0.837 and 0.875. A fifteenth, after inventory",
      "management, video editing software (the software, not a PC for video editing) and security",
      'cameras became categories (34 answers changed over the corpora, one wrong by reading: "4k video',
      'editor for $4k" wants a PC), moved no figure; nor did a sixteenth, after a broad kind in the focus',
      'sentence (website, plugin, developer) also yields to a kind the title names ("Brother bought an',
      'SEO package ..." whose ask mentions the website: 20 answers changed over the corpora, by reading',
      "15 right, 3 wrong, such as a trademark question answered domain registrar, 2 neither).",
      "A seventeenth (2026-11-28; the rows below) followed three changes found reading FindLeads answers:",
      'a sentence hard-wrapped over lines (Stack Exchange bodies) is read whole, "web design" as a',
      'trade\'s noun ("a web design project for hire", "new web design freelancer") no longer names a web',
      "developer (14 answers changed over the corpora, all 14 right by reading; a web design company or",
      'firm is as often hired as owned and still names one), and "a free service that I can create',
      'quotes, invoices" names invoicing software; then a developer named by platform ("an iOS',
      'developer", "an iPhone App Developer", "an app developer") became mobile app development, not web',
      "developer or the platform (37 answers changed over the corpora; by reading 13 right where the old",
      "one was not, mostly someone hiring or partnering with one, and 24 the poster's own trade or job,",
      "where neither answer fits). dev",
      "and test did not move; one precedence answer did, wrongly (onstartups 31818: its focus sentence,",
      'read whole, names "a domain name" and answers domain registrar where the title\'s WordPress was',
      "right), so precision there went from 0.837 to 0.816.",
      "An eighteenth (2026-11-28; the rows below) followed more changes found reading FindLeads answers: the first",
      'name of a list ("onto Facebook, Twitter, Pinterest, Instagram", "iphone/android app") yields, as an example',
      "does, to a kind of thing named in the same sentence or the title; mail on the poster's own domain became",
      'email hosting, and a bare "hosting" asked for ("any recommendation on hosting") web hosting; typographic',
      "apostrophes are read as ASCII ones, and the sentiment model was retrained on them (see Sentiment). 21 answers",
      "changed over the corpora; by the writer's reading 13 right where the old one was not (the marketing platform above gives",
      'email marketing tool, "iphone/android app" mobile app development, "Paypal and Authorize.net" under',
      '"Market share of online payment processors?" payment processing), 4 wrong (mostly a complaint newly read',
      'through a curly "can\u2019t" or "isn\u2019t" that names the wrong thing: YouTube visited for a review, a client\'s',
      "Facebook page; one router complaint lost its network equipment) and 4 neither (the poster's own app or",
      'trade either way). One precedence answer moved, rightly (reddit 14kd0a: "How much would it cost to',
      'build a simple iphone/android app?" from website to mobile app development), so precision there went back',
      "to 0.837; dev and test did not move.",
      "Three more scorings (2026-11-28, the last gives the rows below), each after a change found reading",
      'FindLeads answers, moved no figure: "site builder" names a website builder (1 answer changed over the',
      "corpora); an SEO company, agency, firm or service is an SEO service, not an SEO tool (10, all right by",
      "reading); a help desk names help desk software only as software or a system (31: about 27 careers and",
      'workplaces, "land a help desk gig", rightly left with none; 3 lost, such as "Cayzu Help desk any good?").',
      "",
      table(["split", "leads", "rule", "answered", "precision", "recall"], rows),
    ].join("\n");
  },
};
