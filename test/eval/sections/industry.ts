/**
 * `industry` against hand labels: 100 leads of the reddit 2013, Hacker News and Stack Exchange
 * corpora drawn at random by a hash of the id, labelled for this project from subforum, title and
 * the body's opening with every industry a reader would accept
 * (test/eval/labels/industry.tsv). `dev` (the first 50) was read while the rule was changed;
 * `test` was only scored. No embedding is needed: the rule reads subforum and text.
 */
import { inferIndustry, subforumIndustry } from "../../../src/enrich/leads/industry.js";
import type { Post } from "../../../src/model/post.js";
import { fmt, table } from "../format.js";
import { LABELLED_CORPORA, type Label, labelledPosts, loadLabels } from "../labelled-posts.js";
import type { EvalContext, EvalSection } from "../section.js";

/** The most common label of the taxonomy in these corpora, for the constant baseline. */
const MOST_COMMON = "startups_small_business";

function accuracy(labels: readonly Label[], answer: (l: Label) => string): string {
  return fmt(labels.filter((l) => l.accepted.has(answer(l))).length / labels.length);
}

async function run(ctx: EvalContext): Promise<string> {
  const labels = loadLabels("industry.tsv");
  const posts = new Map((await labelledPosts(labels)).map((p): [string, Post] => [p.id, p]));
  ctx.recordData("Industry labels (hand, this project)", labels.length, "leads of the three corpora");
  const rows: string[][] = [];
  for (const split of ["dev", "test"]) {
    const set = labels.filter((l) => l.split === split);
    const rules: [string, (l: Label) => string][] = [
      [
        "ours: distinct domain words, the subforum counting 2 (startup forums 1)",
        (l) => {
          const p = posts.get(l.id)!;
          return inferIndustry(p.subforum, `${p.title}\n${p.content}`);
        },
      ],
      [
        "baseline: the subforum's industry, else general",
        (l) => subforumIndustry(posts.get(l.id)!.subforum) ?? "general",
      ],
      [`baseline: always ${MOST_COMMON}`, () => MOST_COMMON],
    ];
    for (const [name, answer] of rules) {
      const acc = accuracy(set, answer);
      if (split === "test" && name.startsWith("ours"))
        ctx.recordGoal("industry on hand-labelled leads, test split (no target)", `accuracy ${acc}`, undefined);
      rows.push([split, String(set.length), name, acc]);
    }
  }
  return [
    "Accuracy: the share of posts whose industry is one the label accepts (a post may fit several:",
    '"equity for a CTO" is startups_small_business, a gaming PC build consumer_electronics, a',
    "freelancer's contract legal_compliance or careers_hr). The labels were written by one person for",
    "this project.",
    "",
    "The section was written on 2026-11-25 with the rule then in use: two text words of an industry",
    'overruled the subforum, and a word\'s forms counted apart ("employee" and "employees" made two).',
    "It scored dev 0.720 and test 0.880, below the subforum alone (0.760, 0.920). Reading dev's errors,",
    'the text had overruled a right subforum six times in 50 (two "programming" words on r/netsec, an',
    '"employee" twice on r/talesfromtechsupport) and a wrong one three times. The rule now counts each',
    "word of a list once whatever its form, lets a trade's subforum count as two words (three words of",
    "another trade overrule it) and a startup forum's as one, and no longer maps r/productivity to",
    'software development; "hosting" joined the infrastructure words. The rows below are that rule:',
    "the test split's second scoring. The subforum alone is still ahead on test, by one post; the",
    "text decides where no subforum is known (Hacker News) and on startup forums. Tried after it and",
    "rejected on dev: a startup forum counting half a word, so that one word of a trade overrules it",
    '("a lawyer that specializes in Internet startups"): dev 0.800 -> 0.720 (test, scored in the same',
    'run, 0.720; its third scoring). The rows below are its fifth, after "fulfillment" (US spelling)',
    'joined the shipping words, which had only "fulfilment". Tried after and rejected: dropping "bar"',
    'from the hospitality words ("Best Note-Taking App?" read "menu bar" as a bar); the labelled figures',
    "did not move, and of the 16 industries it changed over the corpora 11 were real bars, restaurants",
    "and coffee shops lost.",
    "",
    table(["split", "leads", "rule", "accuracy"], rows),
  ].join("\n");
}

/** The industry section for `npm run eval`. */
export const industrySection: EvalSection = {
  id: "industry",
  title: "Industry (hand-labelled leads)",
  method:
    "Accuracy over hand-labelled leads: the share whose industry is one the label accepts (a post may fit several). The subforum alone is the baseline; dev was read while the rule was shaped, test is only reported.",
  decisions: ["0026-industry-from-subforum-and-text.md"],
  requires: LABELLED_CORPORA.map(([file]) => file),
  run,
};
