/**
 * The hand-labelled lead set (test/eval/labels/leads.tsv, guideline LEADS-GUIDELINE.md): how it
 * was drawn (counts per stratum and split), what the labels say, how far two labellers agree
 * (Cohen's kappa over the doubly labelled posts), and today's rule classifier scored on the test
 * split, the baseline a learned classifier must beat. Nothing is tuned here.
 */

import { postEmbeddingText } from "../../../src/enrich/embed-text.js";
import { createLeadClassifier, type LeadDecision } from "../../../src/enrich/leads/classifier.js";
import { canonicalProduct } from "../../../src/enrich/leads/gazetteer.js";
import { findTargetProduct } from "../../../src/enrich/leads/product.js";
import { bestSpan } from "../../../src/enrich/leads/products/tagger.js";
import { productTagger } from "../../../src/enrich/leads/products/tagger-model.js";
import { createRuleLeadClassifier } from "../../../src/enrich/leads/rule-classifier.js";
import { sentencesOf } from "../../../src/enrich/leads/text.js";
import { sentimentText } from "../../../src/enrich/post-enricher.js";
import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import type { Post } from "../../../src/model/post.js";
import { embedCached } from "../embedding-cache.js";
import { fmt, table } from "../format.js";
import { LABELLED_CORPORA, labelledPosts } from "../labelled-posts.js";
import { isLead, LEAD_LABEL_TYPES, type LeadLabel, loadLeadLabels, loadLeadStrata } from "../lead-labels.js";
import { LEAD_SPLITS } from "../lead-strata.js";
import { agreement } from "../leads-agreement.js";
import { binary } from "../metrics.js";
import { loadTargetExamples, type TargetExample, taggerExample } from "../product-tagger-data.js";
import { exactTarget, sameTargetAliased } from "../same-target.js";
import type { EvalContext, EvalSection } from "../section.js";

const SPLITS = LEAD_SPLITS.map(([s]) => s);

/** The classifier's types read as the guideline's: "alternatives to", "X vs Y" and "moving from" cues are comparison. */
const AS_GUIDELINE: Record<string, string> = {
  "": "none",
  solution_request: "solution_request",
  advice_request: "solution_request",
  comparison: "switching",
  pain_point: "pain_point",
  buying_intent: "buying_intent",
};

function countBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}

export { sameTarget } from "../same-target.js";

/** Strata tables: per subforum group and per candidate/band, the sample by split and the corpus size. */
function strataTables(labels: readonly LeadLabel[]): string {
  const { rows, sizes } = loadLeadStrata();
  const split = new Map(labels.map((l): [string, string] => [l.id, l.split]));
  const lead = new Map(labels.map((l): [string, LeadLabel] => [l.id, l]));
  const parts = (stratum: string): [string, string] => {
    const [group, candidate, band] = stratum.split("/");
    return [group!, `${candidate}/${band}`];
  };
  const render = (which: 0 | 1, head: string): string => {
    const keys = [...new Set([...sizes.keys()].map((k) => parts(k)[which]))].sort();
    return table(
      [head, "corpus posts", ...SPLITS, "sampled", "labelled lead", "dropped"],
      keys.map((k) => {
        const mine = rows.filter((r) => parts(r.stratum)[which] === k);
        const corpus = [...sizes].filter(([s]) => parts(s)[which] === k).reduce((s, [, n]) => s + n, 0);
        const dropped = mine.filter((r) => lead.get(r.id)?.leadType === "drop").length;
        const leads = mine.filter((r) => {
          const l = lead.get(r.id);
          return l !== undefined && isLead(l);
        }).length;
        return [
          k,
          String(corpus),
          ...SPLITS.map((s) => String(mine.filter((r) => split.get(r.id) === s).length)),
          String(mine.length),
          `${leads} (${fmt(leads / Math.max(1, mine.length - dropped), 2)})`,
          String(dropped),
        ];
      }),
    );
  };
  return [
    `- ${sizes.size} strata, grouped two ways below (the "labelled lead" share is of the posts not dropped)`,
    "",
    render(0, "subforum group"),
    "",
    render(1, "rule candidate / score band"),
  ].join("\n");
}

/** Rows 1-800 and 801-1600 were labelled by different people; the sample order is shuffled, so their shares should match. */
function byLabeller(labels: readonly LeadLabel[]): string {
  const halves: [string, readonly LeadLabel[]][] = [
    ["first labeller (rows 1-800)", labels.slice(0, 800)],
    ["second labeller (rows 801-1600)", labels.slice(800)],
  ];
  return table(
    ["labeller", ...LEAD_LABEL_TYPES],
    halves.map(([name, part]) => [
      name,
      ...LEAD_LABEL_TYPES.map((t) => String(part.filter((l) => l.leadType === t).length)),
    ]),
  );
}

function distribution(labels: readonly LeadLabel[]): string {
  return table(
    ["lead_type", ...SPLITS, "all"],
    LEAD_LABEL_TYPES.map((t) => [
      t,
      ...SPLITS.map((s) => String(labels.filter((l) => l.split === s && l.leadType === t).length)),
      String(labels.filter((l) => l.leadType === t).length),
    ]),
  );
}

function agreementReport(labels: readonly LeadLabel[], second: readonly LeadLabel[], ctx: EvalContext): string {
  const a = agreement(labels, second);
  ctx.recordGoal(
    "lead labels: agreement of two labellers on lead_type (no target)",
    `kappa ${fmt(a.typeKappa)} over ${a.pairs} posts`,
    undefined,
  );
  const types = LEAD_LABEL_TYPES.filter((t) => t !== "drop");
  return [
    `- ${second.length} posts labelled a second time; ${a.dropped} left out because one labeller dropped the post`,
    "",
    table(
      ["measure", "over", "raw agreement", "Cohen's kappa"],
      [
        ["lead_type (5 classes)", String(a.pairs), fmt(a.typeAgreement), fmt(a.typeKappa)],
        ["lead vs not", String(a.pairs), fmt(a.leadAgreement), fmt(a.leadKappa)],
        [
          "same target_product (case-folded), when both saw a lead",
          String(a.bothLead),
          fmt(a.sameTarget / Math.max(1, a.bothLead)),
          "-",
        ],
      ],
    ),
    "",
    "First labeller (rows) against second (columns):",
    "",
    table(
      ["", ...types],
      types.map((t) => [t, ...types.map((u) => String(a.confusion.get(t)?.get(u) ?? 0))]),
    ),
  ].join("\n");
}

interface Scored {
  name: string;
  decisions: LeadDecision[];
}

/**
 * Each sampled post's weight back to the corpus: its stratum's corpus size over the posts drawn
 * from it, so a weighted figure estimates what the classifier does over all posts, not over a
 * sample that over-draws its candidates.
 */
function corpusWeights(): Map<string, number> {
  const { rows, sizes } = loadLeadStrata();
  const drawn = countBy(rows, (r) => r.stratum);
  return new Map(rows.map((r): [string, number] => [r.id, sizes.get(r.stratum)! / drawn.get(r.stratum)!]));
}

/** F1 of the lead decision with every post counted at its corpus weight. */
function weightedF1(
  gold: readonly LeadLabel[],
  pred: readonly boolean[],
  weights: ReadonlyMap<string, number>,
): number {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  gold.forEach((g, i) => {
    const w = weights.get(g.id)!;
    if (pred[i] && isLead(g)) tp += w;
    else if (pred[i]) fp += w;
    else if (isLead(g)) fn += w;
  });
  return tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
}

function baselineRows(gold: readonly LeadLabel[], runs: readonly Scored[], ctx: EvalContext): string[][] {
  const rows: string[][] = [];
  const weights = corpusWeights();
  for (const { name, decisions } of runs) {
    const goldLead = gold.map(isLead);
    const any = binary(
      goldLead,
      decisions.map((d) => d.leadType !== ""),
    );
    const noAdvice = binary(
      goldLead,
      decisions.map((d) => d.leadType !== "" && d.leadType !== "advice_request"),
    );
    const onLeads = gold.map((g, i) => [g, decisions[i]!] as const).filter(([g]) => isLead(g));
    const typeAcc =
      onLeads.filter(([g, d]) => AS_GUIDELINE[d.leadType] === g.leadType).length / Math.max(1, onLeads.length);
    const allAcc = gold.filter((g, i) => AS_GUIDELINE[decisions[i]!.leadType] === g.leadType).length / gold.length;
    let tp = 0;
    let predicted = 0;
    let expected = 0;
    gold.forEach((g, i) => {
      const p = decisions[i]!.leadType === "" ? "" : decisions[i]!.targetProduct;
      if (p !== "") predicted++;
      if (g.targetProduct !== "") expected++;
      if (p !== "" && sameTargetAliased(p, g.targetProduct)) tp++;
    });
    const precision = tp / Math.max(1, predicted);
    const recall = tp / Math.max(1, expected);
    const targetF1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    if (name.startsWith("lead model, as ingest"))
      ctx.recordGoal(
        "lead labels, test split: target_product F1 of the lead model's leads (goal >= 0.70)",
        `P ${fmt(precision)}, R ${fmt(recall)}, F1 ${fmt(targetF1)}`,
        targetF1 >= 0.7,
      );
    if (name.startsWith("rule classifier"))
      ctx.recordGoal(
        "lead labels, test split: today's classifier lead-vs-not F1 (baseline, no target)",
        `F1 ${fmt(any.f1)}, type accuracy on leads ${fmt(typeAcc)}`,
        undefined,
      );
    rows.push([
      name,
      `${fmt(any.precision)} / ${fmt(any.recall)} / ${fmt(any.f1)}`,
      `${fmt(noAdvice.precision)} / ${fmt(noAdvice.recall)} / ${fmt(noAdvice.f1)}`,
      fmt(
        weightedF1(
          gold,
          decisions.map((d) => d.leadType !== ""),
          weights,
        ),
      ),
      fmt(typeAcc),
      fmt(allAcc),
      `${fmt(precision)} / ${fmt(recall)} / ${fmt(targetF1)}`,
    ]);
  }
  return rows;
}

function typeConfusion(gold: readonly LeadLabel[], decisions: readonly LeadDecision[]): string {
  const predicted = ["", "solution_request", "advice_request", "comparison", "pain_point", "buying_intent"];
  const types = LEAD_LABEL_TYPES.filter((t) => t !== "drop");
  return table(
    ["label \\ classifier", ...predicted.map((p) => p || "(none)")],
    types.map((t) => [
      t,
      ...predicted.map((p) => String(gold.filter((g, i) => g.leadType === t && decisions[i]!.leadType === p).length)),
    ]),
  );
}

/** The decision with target_product as the rules alone gave it, before the tagger (decision 0032). */
function rulesTarget(post: Post, d: LeadDecision): LeadDecision {
  if (d.leadType === "") return d;
  const sentences = sentencesOf(post);
  const focus = sentences.find((s) => s.text === d.evidence);
  return { ...d, targetProduct: findTargetProduct(sentences, focus, undefined, { tagger: false }).name };
}

/** The tagger's best span alone (no rules), in the gazetteer's spelling when it lists it. */
function taggerAlone(e: TargetExample): string {
  const span = bestSpan(productTagger(), taggerExample(e).sentences);
  return span === undefined ? "" : (canonicalProduct(span.text) ?? span.text);
}

/**
 * target_product as span extraction alone: over the posts labelled leads (each has a target), the
 * focus sentence the rules pick, and each way of naming the target. Precision is over the answers
 * given, recall over the leads; "lenient" is the match of {@link sameTargetAliased}, "exact" that of
 * {@link exactTarget}.
 */
async function extractionTable(): Promise<string> {
  const examples = await loadTargetExamples();
  const ways: [string, (e: TargetExample) => string][] = [
    [
      "rules: gazetteer and kinds of things (decision 0025)",
      (e) => findTargetProduct(e.sentences, e.focus, undefined, { tagger: false }).name,
    ],
    ["tagger alone", taggerAlone],
    ["rules, then the tagger (decision 0032, as ingest runs it)", (e) => findTargetProduct(e.sentences, e.focus).name],
  ];
  const rows: string[][] = [];
  for (const split of ["dev", "test"]) {
    const set = examples.filter((e) => e.label.split === split);
    for (const [name, answer] of ways) {
      const answers = set.map(answer);
      const prf = (match: (a: string, b: string) => boolean): string => {
        const given = answers.filter((a) => a !== "").length;
        const tp = answers.filter((a, i) => a !== "" && match(a, set[i]!.label.targetProduct)).length;
        const p = tp / Math.max(1, given);
        const r = tp / Math.max(1, set.length);
        return `${fmt(p)} / ${fmt(r)} / ${fmt(p + r === 0 ? 0 : (2 * p * r) / (p + r))}`;
      };
      rows.push([
        split,
        String(set.length),
        name,
        String(answers.filter((a) => a !== "").length),
        prf(sameTargetAliased),
        prf(exactTarget),
      ]);
    }
  }
  return table(["split", "leads", "target from", "answered", "lenient P / R / F1", "exact P / R / F1"], rows);
}

async function run(ctx: EvalContext): Promise<string> {
  const labels = loadLeadLabels();
  const second = loadLeadLabels("leads-second.tsv");
  ctx.recordData("Lead labels (hand, this project)", labels.length, "posts of the three corpora, 60/20/20 by id");
  ctx.recordData("Lead labels, second labeller", second.length, "the first 200 rows again");
  const test = labels.filter((l) => l.split === "test" && l.leadType !== "drop");
  const posts = await labelledPosts(test.map((l) => ({ split: l.split, id: l.id, accepted: new Set<string>() })));
  const rules = createRuleLeadClassifier();
  const model = createLeadClassifier();
  const vectors = await embedCached("lead-labels test", posts.map(postEmbeddingText));
  const sentiment = createSentimentClassifier();
  const tone = posts.map((p, i) => sentiment.classifyOne(sentimentText(p), vectors[i]!));
  const runs: Scored[] = [
    {
      name: "rule classifier as ingest ran it before the lead model (USE-lite vector, sentiment)",
      decisions: posts.map((p: Post, i) => rules.classify(p, vectors[i], tone[i])),
    },
    {
      name: "lead model, as ingest runs it now (decision 0021)",
      decisions: posts.map((p: Post, i) => model.classify(p, vectors[i], tone[i])),
    },
    { name: "rules alone (no vector, no sentiment)", decisions: posts.map((p: Post) => rules.classify(p)) },
  ];
  runs.splice(2, 0, {
    name: "lead model, target_product from the rules alone (before decision 0032)",
    decisions: runs[1]!.decisions.map((d, i) => rulesTarget(posts[i]!, d)),
  });
  const dist = countBy(labels, (l) => l.leadType);
  return [
    `- ${labels.length} posts; leads ${labels.filter(isLead).length} of ${labels.length - (dist.get("drop") ?? 0)} judged`,
    "",
    "### Labels by split",
    "",
    distribution(labels),
    "",
    "Each labeller's half (rows in the sample's shuffled order, so the halves are alike but for the labeller):",
    "",
    byLabeller(labels),
    "",
    "### Strata",
    "",
    strataTables(labels),
    "",
    "### Agreement",
    "",
    agreementReport(labels, second, ctx),
    "",
    "### Baseline: the rule classifier on the test split, beside the lead model",
    "",
    `- ${test.length} test posts (drops left out); advice_request counts as a lead unless the column says not`,
    "",
    table(
      [
        "classifier",
        "lead vs not P / R / F1",
        "same, advice_request not a lead",
        "lead vs not F1, weighted to the corpus",
        "type accuracy on leads",
        "type accuracy, all",
        "target_product P / R / F1",
      ],
      baselineRows(test, runs, ctx),
    ),
    "",
    "target_product P / R / F1 counts an answer right when it and the label are equal or one names the other as whole words, case-folded, a gazetteer alias read as its product (test/eval/same-target.ts); a product's category never stands for it.",
    "",
    "### target_product as span extraction",
    "",
    "Over the posts labelled leads (every one has a target), the rules' focus sentence; the lead decision plays no part, so this is the extraction alone. Lenient is the match above, exact is equality after case-folding and aliases.",
    "",
    await extractionTable(),
    "",
    "Labels (rows) against the rule classifier (columns), test split:",
    "",
    typeConfusion(test, runs[0]!.decisions),
    "",
    "Labels (rows) against the lead model (columns), test split:",
    "",
    typeConfusion(test, runs[1]!.decisions),
  ].join("\n");
}

/** The lead label set section for `npm run eval`. */
export const leadLabelsSection: EvalSection = {
  id: "lead-labels",
  title: "Lead labels (hand-labelled set, agreement, baseline)",
  method:
    "The hand-labelled lead set (test/eval/labels/, LEADS-GUIDELINE.md): counts by split and stratum, Cohen's kappa of two labellers on the doubly labelled rows, and today's classifier on the test split, the baseline a learned classifier must beat (a weighted column counts each post at its stratum's corpus size). target_product is also scored as span extraction alone over the labelled leads of dev and test, the rules beside the product tagger trained on train (thresholds chosen on dev).",
  decisions: ["0019-lead-labels.md", "0032-target-product-as-span-extraction.md"],
  requires: LABELLED_CORPORA.map(([file]) => file),
  run,
};
