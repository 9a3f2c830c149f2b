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
    { replaced: false, tagger: false },
  ).name;
}

/** The rules as ingest ran them before the product tagger (decision 0032). */
function rulesAlone(post: Post, focusText: string): string {
  const sentences = sentencesOf(post);
  return findTargetProduct(
    sentences,
    sentences.find((s) => s.text === focusText),
    undefined,
    { tagger: false },
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
    const hit = findTargetProduct([s], s, undefined, { tagger: false }).name;
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
  decisions: ["0025-target-product-from-a-gazetteer.md", "0032-target-product-as-span-extraction.md"],
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
        ["focus sentence, then title, then the tagger (ours)", (l) => decisions.get(l.id)!.targetProduct],
        [
          "focus sentence, then title: the rules alone",
          (l) => rulesAlone(posts.get(l.id)!, decisions.get(l.id)!.evidence),
        ],
        [
          "the rules without the replaced product",
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
    return [table(["split", "leads", "rule", "answered", "precision", "recall"], rows)].join("\n");
  },
};
