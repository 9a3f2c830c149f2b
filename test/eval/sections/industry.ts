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
  return [table(["split", "leads", "rule", "accuracy"], rows)].join("\n");
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
