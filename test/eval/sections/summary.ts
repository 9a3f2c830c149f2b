/**
 * Does the extractive ai_summary quote the posts that answer the query? No labelled set judges
 * summaries, but SemEval-2016 Task 3 subtask B judges, for each original question, which of its
 * 10 related Qatar Living threads are relevant (PerfectMatch or Relevant). Each question's subject
 * line is the query and its 10 threads, in the search engine's order from the task data, are the
 * results (so the figure is the summarizer's, not our retrieval's); a summary's citations [n]
 * name the threads it quotes. Reported: the share of quotes from relevant threads, whether the
 * first quote is, and whether a summary quotes any relevant thread at all, beside what quoting
 * at random among the results the summarizer reads, or always the first three results, would
 * give. Questions with no relevant thread are left out (no summary could quote one).
 * A second setting hands the summarizer what the service would: our own hybrid retrieval's top 10
 * over all the related threads, for the subject line, each with its relevance, so the share of the
 * best result's relevance below which a result is not read (RELATIVE_FLOOR) can be chosen.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../../src/config.js";
import { shorten } from "../../../src/core/snippet.js";
import { RANK_PRIOR, RELATIVE_FLOOR } from "../../../src/core/summary/extractive.js";
import { postEmbeddingText } from "../../../src/enrich/embed-text.js";
import { LanceDbIndex } from "../../../src/index/lancedb/lancedb-index.js";
import { embedCached } from "../embedding-cache.js";
import { fmt, table } from "../format.js";
import { type Dataset, FOLDER, fill, loadQuestionSimilarity, type Query, SPLITS } from "../retrieval.js";
import type { EvalContext, EvalSection } from "../section.js";
import { READ, type Result, tally } from "../summary-tally.js";
import { engineOrderRows, examplesReport, serviceSection } from "./summary-themes.js";

/** Rank weights compared on train_part2 to choose RANK_PRIOR (dev is only read). */
const RANK_WEIGHTS = [0.25, 0.5, 1, 2];
/** Relative floors compared on train_part2, with our retrieval's results, to choose RELATIVE_FLOOR. */
const FLOORS = [0, 0.4, 0.5, 0.6, 0.7, 0.8];

/**
 * Our retrieval's first page for each question's subject line: LanceDB hybrid search over all the
 * related threads with the service's alpha and fusion, content shortened as served, the fused
 * score as relevance. A thread retrieved for another question is unjudged here and counts as not
 * relevant (the questions differ, so it rarely is).
 */
async function ourResults(data: Dataset): Promise<Map<string, Result[]>> {
  const postVectors = await embedCached("semeval-posts", data.posts.map(postEmbeddingText));
  const subjectVectors = await embedCached(
    "semeval-subjects",
    data.queries.map((q) => q.subject),
  );
  const nativeId = new Map(data.posts.map((p) => [p.id, p.nativeId]));
  const { hybridAlpha: alpha, hybridFusion: fusion } = loadConfig({});
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-eval-summary-"));
  const index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir), fusion });
  try {
    await fill(index, data.posts, postVectors);
    const out = new Map<string, Result[]>();
    for (const [i, q] of data.queries.entries()) {
      const hits = await index.hybrid({
        text: q.subject,
        vector: subjectVectors[i]!,
        alpha,
        limit: 10,
        offset: 0,
        fields: "result",
      });
      out.set(
        q.id,
        hits.map((h) => ({
          id: nativeId.get(h.post.id)!,
          title: h.post.title,
          content: shorten(h.post.content),
          subforum: h.post.subforum,
          relevance: h.score,
        })),
      );
    }
    return out;
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(ctx: EvalContext): Promise<string> {
  const data = loadQuestionSimilarity();
  const byId = new Map(data.posts.map((p) => [p.nativeId, p]));
  const results = (q: Query): Result[] =>
    q.engineOrder.map((id) => {
      const p = byId.get(id);
      if (!p) throw new Error(`related thread ${id} of ${q.id} is not in the posts`);
      return { id, title: p.title, content: p.content, subforum: p.subforum };
    });
  const rows: string[][] = [];
  for (const split of SPLITS) {
    const t = tally(
      data.queries.filter((q) => q.split === split),
      results,
    );
    ctx.recordData(`SemEval-2016 T3 subtask B, ${split}, summaries`, t.questions, "questions with a relevant thread");
    rows.push([
      split,
      "ours: extractive summary",
      String(t.questions),
      fmt(t.quotes / t.questions, 2),
      fmt(t.relevantQuotes / t.quotes),
      fmt(t.firstRelevant / t.questions),
      fmt(t.anyRelevant / t.questions),
    ]);
    rows.push([
      split,
      `baseline: a quote drawn at random from the ${READ} results read`,
      String(t.questions),
      "-",
      fmt(t.readRelevant / t.read),
      fmt(t.readRelevant / t.read),
      "-",
    ]);
    rows.push([
      split,
      "baseline: the first three results quoted",
      String(t.questions),
      "3",
      fmt(t.top3Relevant / (3 * t.questions)),
      "-",
      "-",
    ]);
    if (split === "dev")
      ctx.recordGoal(
        "ai_summary quotes from relevant threads, SemEval-2016 T3 dev (no target)",
        fmt(t.relevantQuotes / t.quotes),
        undefined,
      );
  }
  rows.push(...(await engineOrderRows(data, results)));
  const service = await serviceSection(ctx, data);
  const examples = await examplesReport(ctx);
  const swept = RANK_WEIGHTS.map((w) => {
    const [train, dev] = SPLITS.map((split) =>
      tally(
        data.queries.filter((q) => q.split === split),
        results,
        { rankWeight: w },
      ),
    );
    return { w, train: train!.relevantQuotes / train!.quotes, dev: dev!.relevantQuotes / dev!.quotes };
  });
  const bestTrain = Math.max(...swept.map((r) => r.train));
  const sweep = swept.map(({ w, train, dev }) => {
    const notes = [w === RANK_PRIOR ? "service default" : "", train === bestTrain ? "best on train_part2" : ""].filter(
      Boolean,
    );
    return [String(w), fmt(train), fmt(dev), notes.join("; ")];
  });
  const ours = await ourResults(data);
  const oursRows: string[][] = [];
  for (const split of SPLITS) {
    const qs = data.queries.filter((q) => q.split === split);
    // The baselines' tallies do not depend on the floor: they count the first READ results.
    const base = tally(qs, (q) => ours.get(q.id)!, { relativeFloor: 0 });
    oursRows.push([
      split,
      `baseline: a quote drawn at random from the first ${READ} results`,
      String(base.questions),
      "-",
      "-",
      fmt(base.readRelevant / base.read),
      fmt(base.readRelevant / base.read),
      "-",
    ]);
    oursRows.push([
      split,
      "baseline: the first three results quoted",
      String(base.questions),
      "3",
      "3",
      fmt(base.top3Relevant / (3 * base.questions)),
      "-",
      "-",
    ]);
    for (const floor of FLOORS) {
      const t = tally(qs, (q) => ours.get(q.id)!, { relativeFloor: floor });
      oursRows.push([
        split,
        `ours, relative floor ${floor}${floor === 0 ? " (every result read)" : ""}${floor === RELATIVE_FLOOR ? " (service default)" : ""}`,
        String(t.questions),
        fmt(t.quotes / t.questions, 2),
        fmt(t.postsQuoted / t.questions, 2),
        fmt(t.relevantQuotes / t.quotes),
        fmt(t.firstRelevant / t.questions),
        fmt(t.anyRelevant / t.questions),
      ]);
    }
  }
  return [
    "The summarizer alone, on each question's ten judged threads in the task's order:",
    "",
    table(
      [
        "split",
        "summary",
        "questions",
        "quotes per summary",
        "quotes from relevant threads",
        "first quote relevant",
        "any quote relevant",
      ],
      rows,
    ),
    "",
    "The rank weight, chosen on train_part2 (dev only read):",
    "",
    table(["rank weight", "train_part2: quotes from relevant threads", "dev: quotes from relevant threads", ""], sweep),
    "",
    "On the first page of our LanceDB hybrid search, as the service summarizes it (floor chosen on train_part2):",
    "",
    table(
      [
        "split",
        "summary",
        "questions",
        "quotes per summary",
        "posts quoted per summary",
        "quotes from relevant threads",
        "first quote relevant",
        "any quote relevant",
      ],
      oursRows,
    ),
    "",
    "### The themed summary",
    "",
    service,
    "",
    examples,
    "",
  ].join("\n");
}

/** The summary section for `npm run eval`. */
export const summarySection: EvalSection = {
  id: "summary",
  title: "ai_summary: quotes from relevant posts (SemEval-2016 Task 3 subtask B)",
  method:
    "Each SemEval-2016 3B question's subject line is the query; a quote counts as relevant when the thread it cites is judged relevant. First the ten judged threads in the task's order (the summarizer alone), then SemanticSearch's first page as the service runs it. Weights and floors are chosen on train_part2 or dev as each table says; the other split is only read.",
  decisions: ["0006-extractive-summary.md", "0029-summary-weights-and-floors.md"],
  requires: [FOLDER],
  run,
};
