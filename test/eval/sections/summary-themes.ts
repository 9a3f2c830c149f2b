/**
 * The themed ai_summary's part of the summary evaluation: the share of summary sentences drawn
 * from threads judged relevant (SemEval-2016 Task 3 subtask B), the quote-list baseline beside it, on the
 * task's own result lists and through SemanticSearch as the service runs it; the sweep that
 * chose the relevance floor (MATCH_FLOOR) on dev; and ten summaries side by side for example
 * queries over a sample of the corpora, written to docs/reports/summary-examples.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MATCH_FLOOR } from "../../../src/core/summary/match-floor.js";
import { themedSummary } from "../../../src/core/summary/themed-summary.js";
import { postEmbeddingText } from "../../../src/enrich/embed-text.js";
import type { Post } from "../../../src/model/post.js";
import { PACKAGE_ROOT } from "../../../src/package-root.js";
import { hnCorpusPosts, seCorpusPosts } from "../../fakes/corpus-posts.js";
import { embedCached } from "../embedding-cache.js";
import { fmt, table } from "../format.js";
import { type Dataset, type Query, SPLITS } from "../retrieval.js";
import type { EvalContext } from "../section.js";
import { type ServiceAnswer, serviceAnswers } from "../summary-service.js";
import { type Result, type Tally, tally } from "../summary-tally.js";

/** Floors swept on dev to choose MATCH_FLOOR. */
const FLOORS = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8];

/**
 * The README's example queries and those issue 46 was written from, for the side-by-side table.
 */
export const EXAMPLE_QUERIES = [
  "how to get the first customers for a startup",
  "finding a technical cofounder",
  "web hosting",
  "looking for a CRM for a small team",
  "how to price a SaaS product",
  "what do users think of Apple Watch",
  "problems with paypal",
  "what do developers think of mongodb",
  "react vs angular",
  "how to raise a seed round",
];
/** Posts of each corpus indexed for the examples: a sample the evaluation can embed in a minute or two. */
const EXAMPLE_POSTS = { stackexchange: 3014, hackernews: 3000 };

const share = (t: Tally) => fmt(t.relevantQuotes / t.quotes);

/** Rows for the task's own result lists: the themed summary with the threads' vectors, no relevance. */
export async function engineOrderRows(data: Dataset, results: (q: Query) => Result[]): Promise<string[][]> {
  const vectors = await embedCached("semeval-posts", data.posts.map(postEmbeddingText));
  const vectorOf = new Map(data.posts.map((p, i) => [p.nativeId, vectors[i]!]));
  const subjects = await embedCached(
    "semeval-subjects",
    data.queries.map((q) => q.subject),
  );
  const subjectOf = new Map(data.queries.map((q, i) => [q.id, subjects[i]!]));
  return SPLITS.map((split) => {
    const t = tally(
      data.queries.filter((q) => q.split === split),
      (q) => results(q).map((r) => ({ ...r, vector: vectorOf.get(r.id)! })),
      {},
      (q, rs) => themedSummary(q.subject, rs, { queryVector: subjectOf.get(q.id)! }),
    );
    return [
      split,
      "ours: themed summary (served)",
      String(t.questions),
      fmt(t.quotes / t.questions, 2),
      share(t),
      fmt(t.firstRelevant / t.questions),
      fmt(t.anyRelevant / t.questions),
    ];
  });
}

/** Each question's SemanticSearch answer over all the related threads, keyed by question id. */
async function answersByQuestion(data: Dataset): Promise<Map<string, ServiceAnswer>> {
  const vectors = await embedCached("semeval-posts", data.posts.map(postEmbeddingText));
  const answers = await serviceAnswers(
    data.posts,
    vectors,
    data.queries.map((q) => q.subject),
    "semeval-subject-lines",
  );
  return new Map(data.queries.map((q, i) => [q.id, answers[i]!]));
}

/** The service's answers, floor sweep and the themed summary's shares beside the baseline's; returns markdown. */
export async function serviceSection(ctx: EvalContext, data: Dataset): Promise<string> {
  const answers = await answersByQuestion(data);
  const nativeId = new Map(data.posts.map((p) => [p.id, p.nativeId]));
  const judged = (q: Query, hitId: string) => (q.grades.get(nativeId.get(hitId) ?? "") ?? 0) >= 1;
  const sweep: string[][] = [];
  let best = { floor: FLOORS[0]!, f1: -1 };
  for (const floor of FLOORS) {
    const row = [String(floor)];
    for (const split of SPLITS) {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (const q of data.queries.filter((x) => x.split === split)) {
        for (const h of answers.get(q.id)!.hits) {
          const rel = judged(q, h.post.id);
          if (h.score >= floor) rel ? tp++ : fp++;
          else if (rel) fn++;
        }
      }
      const p = tp / Math.max(1, tp + fp);
      const r = tp / Math.max(1, tp + fn);
      const f1 = p + r > 0 ? (2 * p * r) / (p + r) : 0;
      row.push(fmt(p), fmt(r), fmt(f1));
      if (split === "dev" && f1 > best.f1) best = { floor, f1 };
    }
    sweep.push(row);
  }
  for (const row of sweep) {
    const notes = [
      Number(row[0]) === best.floor ? "best F1 on dev" : "",
      Number(row[0]) === MATCH_FLOOR ? "MATCH_FLOOR" : "",
    ];
    row.push(notes.filter(Boolean).join("; "));
  }
  // Sentences drawn from relevant threads: each cited sentence's [n] names one result of the page.
  const shares: string[][] = [];
  const themed = (a: ServiceAnswer): string => a.summary;
  for (const split of SPLITS) {
    const qs = data.queries.filter((q) => q.split === split && [...q.grades.values()].some((g) => g >= 1));
    for (const [name, pick] of [
      ["baseline: quote-list summary", (a: ServiceAnswer) => a.quoteList],
      ["ours: themed summary (served)", themed],
    ] as const) {
      let sentences = 0;
      let relevant = 0;
      let withCitation = 0;
      for (const q of qs) {
        const a = answers.get(q.id)!;
        const cited = [...pick(a).matchAll(/\[(\d+)\]/g)].map((m) => a.hits[Number(m[1]) - 1]!.post.id);
        sentences += cited.length;
        relevant += cited.filter((id) => judged(q, id)).length;
        if (cited.length > 0) withCitation++;
      }
      shares.push([
        split,
        name,
        String(qs.length),
        fmt(sentences / qs.length, 2),
        fmt(relevant / Math.max(1, sentences)),
      ]);
      if (split === "dev" && pick === themed)
        ctx.recordGoal(
          "ai_summary sentences from relevant threads, SemanticSearch over SemEval-2016 T3 dev (no target)",
          fmt(relevant / Math.max(1, sentences)),
          undefined,
        );
      void withCitation;
    }
  }
  return [
    "The relevance floor (MATCH_FLOOR in src/core/summary/match-floor.ts) decides which results the",
    "themed summary counts as matched, groups and quotes. It is chosen on dev as the floor whose",
    'matched results best agree with the judgements (F1 of "relevance at or above the floor" against',
    "\"judged PerfectMatch or Relevant\") over SemanticSearch's first page (10) for each question's",
    "subject line, run as the service runs it (LanceDB, the service's alpha and fusion, the enriched",
    "threads); train_part2 is shown beside it and chooses nothing. A thread retrieved for another",
    "question counts as not relevant.",
    "",
    table(
      [
        "floor",
        "train_part2 precision",
        "train_part2 recall",
        "train_part2 F1",
        "dev precision",
        "dev recall",
        "dev F1",
        "",
      ],
      sweep,
    ),
    "",
    `Through SemanticSearch at the service's floor (${MATCH_FLOOR}): the share of summary sentences that`,
    "cite (and quote) a thread judged relevant, the themed summary beside the quote-list baseline of the",
    "same page (src/core/summary/extractive.ts).",
    "Questions with no relevant thread are left out.",
    "",
    table(["split", "summary", "questions", "cited sentences per summary", "sentences from relevant threads"], shares),
  ].join("\n");
}

/** The posts the examples are summarised from. */
async function examplePosts(): Promise<Post[]> {
  return [...(await seCorpusPosts(EXAMPLE_POSTS.stackexchange)), ...(await hnCorpusPosts(EXAMPLE_POSTS.hackernews))];
}

/** Writes the ten summaries side by side to docs/reports/summary-examples.md; returns a pointer. */
export async function examplesReport(ctx: EvalContext): Promise<string> {
  const posts = await examplePosts();
  ctx.recordData(
    "summary examples: Stack Exchange startups + first Hacker News stories",
    posts.length,
    "posts indexed",
  );
  const vectors = await embedCached("summary-example-posts", posts.map(postEmbeddingText));
  const answers = await serviceAnswers(posts, vectors, EXAMPLE_QUERIES, "summary-example-queries");
  const rows = EXAMPLE_QUERIES.map((q, i) =>
    [q, answers[i]!.summary, answers[i]!.quoteList].map((c) => c.replace(/\|/g, "\\|")),
  );
  const file = path.join(PACKAGE_ROOT, "docs/reports/summary-examples.md");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    [
      "# ai_summary: themed and quote-list, side by side",
      "",
      "Written by `npm run eval -- --only summary` (test/eval/sections/summary-themes.ts); do not edit.",
      `SemanticSearch's first page (10) for each query over ${posts.length} posts (the ${EXAMPLE_POSTS.stackexchange}`,
      `Stack Exchange startups questions and the first ${EXAMPLE_POSTS.hackernews} Hacker News stories of the`,
      'shared corpora), LanceDB, USE-lite vectors, the service\'s alpha. "Themed" is the summary the',
      'service returns, "quote list" the extractive baseline of the same page (src/core/summary/extractive.ts).',
      "",
      table(["query", "themed", "quote list"], rows),
      "",
    ].join("\n"),
  );
  return `Ten summaries side by side, themed and quote-list, for example queries: [docs/reports/summary-examples.md](reports/summary-examples.md).`;
}
